import TraitBridgeMatterCodec

/// The `matter-tlv` target: Matter TLV, what every Matter message is made of, from untrusted bytes. The
/// decoder is bounded (depth, elements, UTF-8, duplicate members); whatever it accepts, written again in the
/// shortest form, must read back equal, and writing it once more must give the same bytes.
enum MatterTLVInputs {
    static func roundTrip(_ bytes: [UInt8]) {
        guard let element = try? TLVElement(decoding: bytes) else { return }  // refused: the decoder's job done
        let written = element.encoded
        let again: TLVElement
        do {
            again = try TLVElement(decoding: written)
        } catch {
            preconditionFailure("TLV written from a decoded element does not read back: \(error)")
        }
        precondition(again == element, "TLV written again reads back as another value: \(element) vs \(again)")
        precondition(again.encoded == written, "writing TLV is not a fixed point")
    }

    /// One element of each type, each tag form and each container, in a structure: a start for the fuzzer.
    static func seeds() -> [[UInt8]] {
        let members: [TLVElement] = [
            TLVElement(tag: .context(0), value: .signed(-17)),
            TLVElement(tag: .context(1), value: .unsigned(4_294_967_296)),
            TLVElement(tag: .context(2), value: .bool(true)),
            TLVElement(tag: .context(3), value: .float(1.5)),
            TLVElement(tag: .context(4), value: .double(-2.25)),
            TLVElement(tag: .context(5), value: .string("Küche")),
            TLVElement(tag: .context(6), value: .octets([0, 1, 2, 0xFF])),
            TLVElement(tag: .context(7), value: .null),
            TLVElement(tag: .context(8), value: .array([.unsigned(1), .unsigned(300), .array([])])),
            TLVElement(
                tag: .context(9),
                value: .list([TLVElement(value: .unsigned(1)), TLVElement(tag: .context(0), value: .unsigned(42))])),
            TLVElement(tag: .commonProfile(70_000), value: .unsigned(0)),
            TLVElement(tag: .fullyQualified(vendorID: 0xFFF1, profile: 0xDEED, tag: 1), value: .bool(false)),
        ]
        return [TLVElement(value: .structure(members)).encoded, TLVElement(value: .unsigned(42)).encoded]
    }
}
