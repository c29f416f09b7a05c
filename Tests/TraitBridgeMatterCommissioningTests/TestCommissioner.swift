import Testing
import Crypto
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials

/// A commissioner for tests: it holds its own root and intermediate keys and issues an RCAC, an ICAC
/// and a NOC in Matter TLV for the device's operational key. Each certificate is written with a
/// placeholder signature, decoded by `OperationalCertificate` to get its X.509 TBSCertificate, signed
/// with swift-crypto, and written again with the real signature.
struct TestCommissioner {
    let rootKey = P256.Signing.PrivateKey()
    let icacKey = P256.Signing.PrivateKey()
    let rcacID: UInt64 = 0xCACA_CACA_0000_0001
    let icacID: UInt64 = 0xCACA_CACA_0000_0003
    var fabricID: UInt64 = 0xFAB0_0000_0000_001D
    var nodeID: UInt64 = 0xDEDE_DEDE_0001_0001
    /// The controller's own node id, the CaseAdminSubject.
    let adminNodeID: UInt64 = 0x0000_0000_0001_B669
    let ipkEpochKey = [UInt8](repeating: 0x4A, count: 16)

    /// The root certificate, issued once (ECDSA signatures differ each time).
    let rcac: [UInt8]
    /// The intermediate, issued once.
    let icac: [UInt8]

    init() {
        rcac = Self.certificate(
            issuer: [(20, rcacID)], subject: [(20, rcacID)], publicKey: rootKey.publicKey, issuerKey: rootKey,
            isCA: true, authorityKey: rootKey.publicKey)
        icac = Self.certificate(
            issuer: [(20, rcacID)], subject: [(19, icacID)], publicKey: icacKey.publicKey, issuerKey: rootKey,
            isCA: true, authorityKey: rootKey.publicKey)
    }

    /// A NOC for `publicKey` (65 bytes, uncompressed), issued by the ICAC.
    func noc(for publicKey: [UInt8]) throws -> [UInt8] {
        Self.certificate(
            issuer: [(19, icacID)], subject: [(17, nodeID), (21, fabricID)],
            publicKey: try P256.Signing.PublicKey(x963Representation: publicKey), issuerKey: icacKey,
            isCA: false, authorityKey: icacKey.publicKey)
    }

    /// The AddNOC fields for `noc`.
    func addNOCFields(noc: [UInt8], includeICAC: Bool = true) -> TLVValue {
        .contextStructure([
            0: .octets(noc), 1: includeICAC ? .octets(icac) : nil, 2: .octets(ipkEpochKey),
            3: .unsigned(adminNodeID), 4: .unsigned(0xFFF1),
        ])
    }

    private static func certificate(
        issuer: [(UInt8, UInt64)], subject: [(UInt8, UInt64)], publicKey: P256.Signing.PublicKey,
        issuerKey: P256.Signing.PrivateKey, isCA: Bool, authorityKey: P256.Signing.PublicKey
    ) -> [UInt8] {
        func name(_ attributes: [(UInt8, UInt64)]) -> TLVValue {
            .list(attributes.map { TLVElement(tag: .context($0.0), value: .unsigned($0.1)) })
        }
        func keyID(_ key: P256.Signing.PublicKey) -> [UInt8] {
            Array(Insecure.SHA1.hash(data: key.x963Representation))
        }
        var extensions = [
            TLVElement(tag: .context(1), value: .contextStructure([1: .bool(isCA)])),
            TLVElement(tag: .context(2), value: .unsigned(isCA ? 0x60 : 0x01)),
        ]
        if !isCA { extensions.append(TLVElement(tag: .context(3), value: .array([.unsigned(2), .unsigned(1)]))) }
        extensions += [
            TLVElement(tag: .context(4), value: .octets(keyID(publicKey))),
            TLVElement(tag: .context(5), value: .octets(keyID(authorityKey))),
        ]
        func encode(signature: [UInt8]) -> [UInt8] {
            TLVElement(
                value: .contextStructure([
                    1: .octets([0x01, 0x23, 0x45, 0x67]), 2: .unsigned(1), 3: name(issuer),
                    4: .unsigned(0x2700_0000), 5: .unsigned(0), 6: name(subject), 7: .unsigned(1), 8: .unsigned(1),
                    9: .octets(Array(publicKey.x963Representation)), 10: .list(extensions), 11: .octets(signature),
                ])
            ).encoded
        }
        let draft = encode(signature: [UInt8](repeating: 0, count: 64))
        guard let tbs = try? OperationalCertificate(tlv: draft).tbsCertificateDER,
            let signature = try? issuerKey.signature(for: tbs)
        else { return draft }
        return encode(signature: Array(signature.rawRepresentation))
    }
}

/// Contexts of the commissioning sessions: PASE before AddNOC, CASE after.
enum Session {
    static let challenge = [UInt8](repeating: 0xC5, count: 16)

    static func pase(at now: ContinuousClock.Instant, fabricIndex: UInt8 = 0) -> CommandContext {
        CommandContext(sessionKind: .pase, fabricIndex: fabricIndex, attestationChallenge: challenge, now: now)
    }

    static func `case`(fabricIndex: UInt8, at now: ContinuousClock.Instant) -> CommandContext {
        CommandContext(sessionKind: .case, fabricIndex: fabricIndex, attestationChallenge: challenge, now: now)
    }
}

extension RootEndpoint.InvokeResult {
    /// The response fields, or nil for a status.
    var fields: TLVValue? {
        if case .response(_, let fields) = self { fields } else { nil }
    }

    var commandID: UInt32? {
        if case .response(let id, _) = self { id } else { nil }
    }
}

/// Cluster and command ids the tests use.
enum Command {
    static let generalCommissioning: UInt32 = 0x0030
    static let operationalCredentials: UInt32 = 0x003E
    static let armFailSafe: UInt32 = 0x00
    static let setRegulatoryConfig: UInt32 = 0x02
    static let commissioningComplete: UInt32 = 0x04
    static let attestationRequest: UInt32 = 0x00
    static let certificateChainRequest: UInt32 = 0x02
    static let csrRequest: UInt32 = 0x04
    static let addNOC: UInt32 = 0x06
    static let addTrustedRootCertificate: UInt32 = 0x0B
}

extension TestCommissioner {
    /// Runs arm → CSR → root → AddNOC → CommissioningComplete for `commissioner`; the NOCResponse status.
    @discardableResult
    func commission(_ root: inout RootEndpoint, at start: ContinuousClock.Instant) throws -> TLVValue? {
        let commissioner = self
        let pase = Session.pase(at: start)
        func invoke(_ cluster: UInt32, _ command: UInt32, _ fields: TLVValue, _ context: CommandContext? = nil)
            -> RootEndpoint.InvokeResult
        {
            root.invoke(endpoint: 0, cluster: cluster, command: command, fields: fields, context: context ?? pase)
        }
        _ = invoke(0x30, 0x00, .contextStructure([0: .unsigned(60), 1: .unsigned(1)]))
        _ = invoke(0x3E, 0x04, .contextStructure([0: .octets([UInt8](repeating: 9, count: 32))]))
        _ = invoke(0x3E, 0x0B, .contextStructure([0: .octets(commissioner.rcac)]))
        let key = try #require(root.state.failSafe?.pendingKey).publicKey
        let added = invoke(0x3E, 0x06, commissioner.addNOCFields(noc: try commissioner.noc(for: key)))
        if added.fields?[0] == .unsigned(0), case .unsigned(let index)? = added.fields?[1] {
            _ = invoke(0x30, 0x04, .contextStructure([:]), Session.case(fabricIndex: UInt8(index), at: start))
        } else {
            _ = invoke(0x30, 0x00, .contextStructure([0: .unsigned(0), 1: .unsigned(0)]))
        }
        return added.fields?[0]
    }
}
