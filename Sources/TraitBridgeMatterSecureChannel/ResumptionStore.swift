import TraitBridgeMatterCredentials

/// The device's CASE resumption records (Matter Core §4.14.2.2–4.14.2.4): after a full CASE, the shared
/// secret under the resumption ID TBEData2 carried; after a resumption, the same secret under the ID
/// Sigma2_Resume carried. A Sigma1 naming one of these IDs with the right MIC is answered with
/// Sigma2_Resume in place of a full Sigma2. It exists so ``CASEResponder`` stays a value: the records are
/// part of it, nothing is stored elsewhere, and nothing outlives the process (as connectedhomeip's
/// `SimpleSessionResumptionStorage` keeps them in its key-value store, a restart here just costs the next
/// CASE a full handshake).
///
/// Rules, as connectedhomeip `DefaultSessionResumptionStorage` keeps them: one record per peer node on a
/// fabric (a new one replaces the old), at most ``capacity`` (the least recently saved or resumed goes),
/// and every record of a fabric goes with the fabric. Printing shows counts, never a secret.
public struct ResumptionStore: Sendable {
    /// One resumable session: what the resumed session carries without a certificate in sight.
    public struct Record: Sendable, Hashable {
        /// The ID the next Sigma1 names (16 random bytes the device chose; sent encrypted, then in the clear).
        public let resumptionID: [UInt8]
        /// The ECDH shared secret of the handshake this record comes from (kept as bytes: swift-crypto's
        /// SymmetricKey is not Sendable). A secret: read only to keep it, never to print it.
        public let sharedSecret: [UInt8]
        public let peerNodeID: UInt64
        public let peerCASEAuthenticatedTags: [UInt32]
        public let fabricIndex: UInt8

        /// The same session under another resumption ID (after a resumption).
        func renamed(_ resumptionID: [UInt8]) -> Record {
            Record(
                resumptionID: resumptionID, sharedSecret: sharedSecret, peerNodeID: peerNodeID,
                peerCASEAuthenticatedTags: peerCASEAuthenticatedTags, fabricIndex: fabricIndex)
        }
    }

    /// connectedhomeip's `CHIP_CONFIG_CASE_SESSION_RESUME_CACHE_SIZE` is 3 × the fabric count (4 in older
    /// releases); 16 covers the device's 5 fabrics (`CommissioningState.supportedFabrics`) with room.
    public static let defaultCapacity = 16

    public let capacity: Int
    /// Least recently saved (or resumed) first: what the owner keeps across a restart, in this order.
    public private(set) var records: [Record] = []

    public init(capacity: Int = defaultCapacity) {
        precondition(capacity > 0, "a resumption store holds at least one record")
        self.capacity = capacity
    }

    /// A store holding `records` (least recent first) as a restart finds them again: saved one by one, so
    /// the rules hold of them too (one per peer on a fabric, at most `capacity`, the most recent kept).
    public init(capacity: Int = defaultCapacity, restoring records: [Record]) {
        self.init(capacity: capacity)
        for record in records { save(record) }
    }

    public var count: Int { records.count }
    public var isEmpty: Bool { records.isEmpty }

    /// The record named `resumptionID`, if held. (The ID is no secret: Sigma1 carries it in the clear.)
    public func record(for resumptionID: [UInt8]) -> Record? {
        records.last { $0.resumptionID == resumptionID }
    }

    /// Holds `record` as the most recent, in place of any record of the same ID or of the same peer on its
    /// fabric; the least recent goes when more than ``capacity`` are held.
    mutating func save(_ record: Record) {
        records.removeAll {
            $0.resumptionID == record.resumptionID
                || ($0.fabricIndex == record.fabricIndex && $0.peerNodeID == record.peerNodeID)
        }
        records.append(record)
        if records.count > capacity { records.removeFirst(records.count - capacity) }
    }

    /// Forgets the record named `resumptionID`.
    public mutating func remove(resumptionID: [UInt8]) {
        records.removeAll { $0.resumptionID == resumptionID }
    }

    /// Forgets every record of the fabric `index` (it was removed, or its addition rolled back).
    public mutating func removeAll(ofFabric index: UInt8) {
        records.removeAll { $0.fabricIndex == index }
    }

    /// Forgets every record of a fabric not in `indices` (the fabrics CASE now serves).
    public mutating func retainFabrics(_ indices: Set<UInt8>) {
        records.removeAll { !indices.contains($0.fabricIndex) }
    }

    /// The fabric index of each record, least recent first (for tests and diagnostics).
    public var fabricIndices: [UInt8] { records.map(\.fabricIndex) }
}

extension ResumptionStore.Record {
    /// A record as its owner kept it; nil unless the ID is 16 bytes and the secret 32 (a P-256 ECDH
    /// secret), so a damaged copy is never offered to a peer.
    public init?(
        restoring resumptionID: [UInt8], sharedSecret: [UInt8], peerNodeID: UInt64,
        peerCASEAuthenticatedTags: [UInt32], fabricIndex: UInt8
    ) {
        guard resumptionID.count == CASEConstants.resumptionIDByteCount,
            sharedSecret.count == CASEConstants.sharedSecretByteCount, (1...254).contains(fabricIndex)
        else { return nil }
        self.init(
            resumptionID: resumptionID, sharedSecret: sharedSecret, peerNodeID: peerNodeID,
            peerCASEAuthenticatedTags: peerCASEAuthenticatedTags, fabricIndex: fabricIndex)
    }
}

extension ResumptionStore: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "ResumptionStore(\(records.count) of \(capacity) records)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension ResumptionStore.Record: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The peer and fabric; never the secret.
    public var description: String {
        "ResumptionStore.Record(node \(hex(peerNodeID)), fabric \(fabricIndex))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
