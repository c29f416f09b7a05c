import Crypto
import TraitBridgeMatterCredentials

/// What of the commissioning state must survive a restart, as plain bytes and numbers: the
/// committed fabrics (their certificates in Matter TLV, the IPK epoch key, the raw P-256
/// operational private key, the admin vendor id, the label), the ACL over them and the regulatory
/// config. It exists so the node's owner can keep a commissioned device commissioned across
/// restarts without knowing the fabric table's types; a fail-safe's staged state (a fabric AddNOC
/// added and CommissioningComplete has not committed, a pending root or key) is never in it.
///
/// It holds secrets (the operational keys, the IPKs): its description shows ids only.
public struct CommissioningSnapshot: Sendable, Hashable, CustomStringConvertible {
    /// One committed fabric as it is kept.
    public struct StoredFabric: Sendable, Hashable {
        /// The fabric index, 1…254.
        public var index: UInt8
        /// The RCAC in Matter TLV.
        public var rootCertificate: [UInt8]
        /// The ICAC in Matter TLV, when the fabric has one.
        public var intermediateCertificate: [UInt8]?
        /// The NOC in Matter TLV.
        public var nodeCertificate: [UInt8]
        /// The IPK epoch key (16 bytes).
        public var ipkEpochKey: [UInt8]
        /// The operational private key, raw P-256 (32 bytes).
        public var operationalKey: [UInt8]
        /// AddNOC's AdminVendorId.
        public var vendorID: UInt16
        public var label: String

        public init(
            index: UInt8, rootCertificate: [UInt8], intermediateCertificate: [UInt8]?, nodeCertificate: [UInt8],
            ipkEpochKey: [UInt8], operationalKey: [UInt8], vendorID: UInt16, label: String
        ) {
            self.index = index
            self.rootCertificate = rootCertificate
            self.intermediateCertificate = intermediateCertificate
            self.nodeCertificate = nodeCertificate
            self.ipkEpochKey = ipkEpochKey
            self.operationalKey = operationalKey
            self.vendorID = vendorID
            self.label = label
        }
    }

    public var fabrics: [StoredFabric]
    /// The ACL entries of the committed fabrics, in the table's order.
    public var accessControl: [AccessControlEntry]
    public var regulatoryConfig: RegulatoryLocation
    public var countryCode: String

    /// An uncommissioned node's: no fabric, no ACL entry, indoor and outdoor, country unknown.
    public init(
        fabrics: [StoredFabric] = [], accessControl: [AccessControlEntry] = [],
        regulatoryConfig: RegulatoryLocation = .indoorOutdoor, countryCode: String = "XX"
    ) {
        self.fabrics = fabrics
        self.accessControl = accessControl
        self.regulatoryConfig = regulatoryConfig
        self.countryCode = countryCode
    }

    /// The fabric indexes and the number of ACL entries; never a key.
    public var description: String {
        "CommissioningSnapshot(fabrics \(fabrics.map { String($0.index) }), \(accessControl.count) ACL entries)"
    }
}

/// Why a snapshot cannot be restored: the fabric and what is wrong with it, never key material.
public struct SnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The fabric index concerned; nil for the snapshot as a whole.
    public var fabricIndex: UInt8?
    public var reason: String

    public init(fabricIndex: UInt8?, _ reason: String) {
        self.fabricIndex = fabricIndex
        self.reason = reason
    }

    public var description: String { (fabricIndex.map { "fabric \($0): " } ?? "") + reason }
}

extension CommissioningState {
    /// The committed state (fabrics, ACL, regulatory config): what a restart must find again. A
    /// fabric the armed fail-safe added, and its ACL entries, are left out until it is committed; a
    /// fabric UpdateNOC changed is kept as it was before until then.
    public var snapshot: CommissioningSnapshot {
        let pending = failSafe?.addedFabricIndex
        let previous = failSafe?.fabricBeforeUpdate
        return CommissioningSnapshot(
            fabrics: fabrics.filter { $0.index != pending }.map { live in
                let fabric = live.index == previous?.index ? previous ?? live : live
                return CommissioningSnapshot.StoredFabric(
                    index: fabric.index, rootCertificate: fabric.chain.rcac.tlv,
                    intermediateCertificate: fabric.chain.icac?.tlv, nodeCertificate: fabric.chain.noc.tlv,
                    ipkEpochKey: fabric.ipkEpochKey,
                    operationalKey: Array(fabric.operationalKey.privateKey.rawRepresentation),
                    vendorID: fabric.vendorID, label: fabric.label)
            },
            accessControl: accessControl.filter { $0.fabricIndex != pending }, regulatoryConfig: regulatoryConfig,
            countryCode: countryCode)
    }

    /// A node's state as `snapshot` kept it, no fail-safe armed. Each fabric is checked as AddNOC
    /// checked it (the chain verified, time ignored; the NOC certifies the key; a 16-byte IPK;
    /// indexes 1…254, each once; at most ``supportedFabrics``) and each ACL entry must name one
    /// of them, so a damaged or edited registry is refused rather than half restored.
    /// - Throws: ``SnapshotError`` naming the fabric and the check.
    public init(
        restoring snapshot: CommissioningSnapshot, locationCapability: RegulatoryLocation = .indoorOutdoor
    ) throws(SnapshotError) {
        self.init(locationCapability: locationCapability)
        guard snapshot.fabrics.count <= Self.supportedFabrics else {
            throw SnapshotError(fabricIndex: nil, "\(snapshot.fabrics.count) fabrics; at most \(Self.supportedFabrics)")
        }
        for stored in snapshot.fabrics {
            guard (1...254).contains(stored.index), !fabrics.contains(where: { $0.index == stored.index }) else {
                throw SnapshotError(fabricIndex: stored.index, "the index is not 1…254, or is given twice")
            }
            fabrics.append(try Self.restore(stored))
        }
        for entry in snapshot.accessControl where fabric(entry.fabricIndex) == nil {
            throw SnapshotError(fabricIndex: entry.fabricIndex, "an ACL entry names a fabric that is not installed")
        }
        accessControl = snapshot.accessControl
        guard locationCapability == .indoorOutdoor || snapshot.regulatoryConfig == locationCapability else {
            throw SnapshotError(fabricIndex: nil, "the regulatory config is beyond the location capability")
        }
        regulatoryConfig = snapshot.regulatoryConfig
        countryCode = snapshot.countryCode
    }

    private static func restore(_ stored: CommissioningSnapshot.StoredFabric) throws(SnapshotError) -> Fabric {
        func fail(_ reason: String) -> SnapshotError { SnapshotError(fabricIndex: stored.index, reason) }
        let rcac: OperationalCertificate
        let noc: OperationalCertificate
        var icac: OperationalCertificate?
        do {
            rcac = try OperationalCertificate(tlv: stored.rootCertificate)
            noc = try OperationalCertificate(tlv: stored.nodeCertificate)
            if let bytes = stored.intermediateCertificate { icac = try OperationalCertificate(tlv: bytes) }
        } catch {
            throw fail("a certificate does not decode: \(error)")
        }
        let chain: CertificateChain
        do { chain = try CertificateChain.verify(noc: noc, icac: icac, rcac: rcac, policy: .ignoringTime) } catch {
            throw fail("the chain does not verify: \(error)")
        }
        guard stored.ipkEpochKey.count == 16 else { throw fail("the IPK epoch key is not 16 bytes") }
        guard let privateKey = try? P256.Signing.PrivateKey(rawRepresentation: stored.operationalKey) else {
            throw fail("the operational key is not a P-256 private key")
        }
        let key = OperationalKeyPair(privateKey: privateKey)
        guard key.publicKey == noc.publicKey else { throw fail("the NOC does not certify the operational key") }
        guard stored.label.utf8.count <= 32 else { throw fail("the label is over 32 bytes") }
        return Fabric(
            index: stored.index, chain: chain, ipkEpochKey: stored.ipkEpochKey, operationalKey: key,
            vendorID: stored.vendorID, label: stored.label)
    }
}
