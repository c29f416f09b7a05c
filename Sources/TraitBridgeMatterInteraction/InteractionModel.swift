import TraitBridgeMatterCodec

/// Constants every Interaction Model message shares.
public enum InteractionModel {
    /// The InteractionModelRevision (tag 0xFF) this node writes: 11, what connectedhomeip 1.4.0 — the SDK
    /// of python-matter-server 7.0.1 (home-assistant-chip-core 2024.11.4) — and Apple Home (spec 1.4.0)
    /// send. Revision 12 (WildcardPathFlags, batch invoke) came with SDK 1.4.1. Receivers only log it
    /// (connectedhomeip, matter.js `checkSenderRevision`), so every revision is accepted on receipt.
    public static let revision: UInt8 = 11
}

extension TLVValue {
    /// An array of `items` as TLV, or nil (the member left out) when there are none.
    static func optionalArray<T>(_ items: [T], _ tlv: (T) -> TLVValue) -> TLVValue? {
        items.isEmpty ? nil : .array(items.map(tlv))
    }

    /// `true` as a flag that is written only when set (MoreChunkedMessages, SuppressResponse).
    static func flag(_ isSet: Bool) -> TLVValue? { isSet ? .bool(true) : nil }
}

/// The payload of a message: an anonymous structure of its context-tagged members in tag order, nil ones
/// left out, then the InteractionModelRevision, as connectedhomeip's builders write it.
func encodeMessage(_ members: [(UInt8, TLVValue?)], revision: UInt8?) -> [UInt8] {
    var elements = members.compactMap { tag, value in value.map { TLVElement(tag: .context(tag), value: $0) } }
    if let revision { elements.append(TLVElement(tag: .context(0xFF), value: .unsigned(UInt64(revision)))) }
    return TLVElement(value: .structure(elements)).encoded
}
