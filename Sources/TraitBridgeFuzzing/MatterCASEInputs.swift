import Crypto
import TraitBridgeMatterCredentials
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// CASE from outside, as a function of bytes: Sigma1, Sigma3 and StatusReport payloads and time-outs into a
/// ``CASEResponder`` that holds a real fabric (connectedhomeip's test certificates: the device is Node01_02
/// under Root01; the harness's ``CASEInitiator`` is Node01_01 under ICA01). The harness can make a Sigma1's
/// destination ID valid and put its own ephemeral key in, then seal (and sign) a Sigma3's TBEData3 under the
/// running handshake's keys, so inputs get past the destination check and the decryption into the initiator's
/// certificate chain, fabric and signature checks.
enum MatterCASEInputs {
    typealias Responder = CASEResponder<UInt8>
    typealias Certificates = MatterTestCertificates

    /// The device's node ID (Node01_02).
    static let deviceNodeID: UInt64 = 0xDEDE_DEDE_0001_0002

    /// The responder every input starts from (its chain is verified once: made once, copied per input).
    static let responder: Responder = {
        do {
            let root = try OperationalCertificate(tlv: Certificates.root01TLV)
            let chain = try CertificateChain.verify(
                noc: try OperationalCertificate(tlv: Certificates.node0102TLV), icac: nil, rcac: root,
                policy: .ignoringTime)
            let key = try P256.Signing.PrivateKey(rawRepresentation: Certificates.node0102PrivateKey)
            let fabric = try CASEFabric(
                fabricIndex: 1, chain: chain, ipk: ipk(chain.compressedFabricID),
                operationalKey: OperationalKeyPair(privateKey: key))
            return Responder(configuration: .init(fabrics: [fabric], validityPolicy: .ignoringTime))
        } catch {
            preconditionFailure("connectedhomeip's test chain makes a fabric: \(error)")
        }
    }()

    static var fabric: CASEFabric { responder.configuration.fabrics[0] }

    /// The fabric's IPK, from the epoch key 00 01 … 0F.
    static func ipk(_ compressedFabricID: UInt64) throws -> SymmetricKey {
        try FabricIdentifiers.operationalGroupKey(
            epochKey: SymmetricKey(data: (0..<16).map { UInt8($0) }), compressedFabricID: compressedFabricID)
    }

    /// An initiator of the fabric (a fresh ephemeral key each time) presenting Node01_01 and ICA01.
    static func initiator() -> CASEInitiator {
        do {
            let identity = CASEInitiator.Identity(
                noc: Certificates.node0101TLV, icac: Certificates.ica01TLV,
                key: try P256.Signing.PrivateKey(rawRepresentation: Certificates.node0101PrivateKey))
            return CASEInitiator(
                ipk: fabric.ipk, root: fabric.chain.rcac, peerNodeID: deviceNodeID, identity: identity)
        } catch {
            preconditionFailure("Node01_01's key is a P-256 key: \(error)")
        }
    }

    /// How a handshake ended.
    enum End: Equatable {
        case session
        case failure(CASEError)
    }

    /// One record's kind: the low two bits pick the event, bits 2–3 the exchange, bits 4–5 the harness's help.
    struct Kind {
        let byte: UInt8
        var event: UInt8 { byte & 0x03 }
        var exchange: UInt8 { (byte >> 2) & 0x03 }
        /// Sigma1: the destination ID is computed for the fabric. Sigma3: the payload is TBEData3, sealed.
        var assisted: Bool { byte & 0x10 != 0 }
        /// Sigma1: the harness's ephemeral key. Sigma3: TBEData3's signature is made with Node01_01's key.
        var ours: Bool { byte & 0x20 != 0 }
    }

    /// Records of [kind][length: 2 bytes, big-endian][payload]: kind's low two bits are the event (0 Sigma1,
    /// 1 Sigma3, 2 StatusReport, 3 time-out), bits 2–3 the exchange, bit 4 asks the harness for a valid
    /// destination ID (Sigma1) or to seal the payload as TBEData3 under the running handshake's S3K
    /// (Sigma3), bit 5 for its ephemeral key (Sigma1) or to re-sign that TBEData3's NOC and ICAC with
    /// Node01_01's key (Sigma3). At most 32 records.
    /// - Returns: how each handshake ended, in order.
    @discardableResult
    static func events(_ bytes: [UInt8]) -> [End] {
        var ends: [End] = []
        var responder = responder
        let initiator = initiator()
        var generator = MatterDeviceInputs.SeededGenerator(state: 0xCA5E)
        /// The last handshake our ephemeral key opened: what sealing a Sigma3 needs.
        var handshake: (sigma1: [UInt8], sigma2: [UInt8])?
        var offset = 0
        var records: UInt16 = 0
        while offset + 3 <= bytes.count, records < 32 {
            let kind = Kind(byte: bytes[offset])
            let length = Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            offset += 3
            var payload = Array(bytes[offset..<min(bytes.count, offset + length)])
            offset += payload.count
            records += 1
            let before = responder.phase
            switch kind.event {
            case 0:
                payload = sigma1(payload, kind, initiator)
                let action = responder.handle(
                    .sigma1(payload: payload, localSessionID: records), on: kind.exchange, using: &generator)
                if let end = check(action, on: kind.exchange, before: before, responder) { ends.append(end) }
                if case .send(let sent) = action, sent.opcode == .caseSigma2 {
                    let carriesOurKey =
                        (try? Sigma1(decoding: payload))?.initiatorEphemeralPublicKey
                        == initiator.ephemeralPublicKey
                    handshake = carriesOurKey ? (payload, sent.payload) : nil
                    // A Sigma2 to our key passes every check a controller makes.
                    if carriesOurKey {
                        do { _ = try initiator.finish(sigma1: payload, sigma2: sent.payload) } catch {
                            preconditionFailure("the device's Sigma2 does not check out: \(error)")
                        }
                    }
                }
            case 1:
                let sealed = kind.assisted ? handshake.flatMap { sigma3(payload, kind, initiator, $0) } : nil
                payload = sealed ?? payload
                let action = responder.handle(.sigma3(payload: payload), on: kind.exchange, using: &generator)
                if let end = check(action, on: kind.exchange, before: before, responder) { ends.append(end) }
                if case .established(let established) = action {
                    // Only a Sigma3 sealed under S3K opens a session, with the keys the initiator derives too.
                    guard let handshake, sealed != nil else { preconditionFailure("a session from forged Sigma3") }
                    let keys = try? initiator.sessionKeys(
                        sigma1: handshake.sigma1, sigma2: handshake.sigma2, sigma3: payload)
                    precondition(established.keys == keys, "the device's session keys are not the initiator's")
                }
            case 2:
                let action = responder.handle(.statusReport(payload: payload), on: kind.exchange, using: &generator)
                if let end = check(action, on: kind.exchange, before: before, responder) { ends.append(end) }
            default:
                let failure = responder.timeOut()
                if let failure { ends.append(.failure(failure.error)) }
                precondition((failure == nil) == (before == "listening"), "a time-out with nothing running, or none")
                precondition(failure?.reply == nil && responder.phase == "listening", "a time-out answered")
            }
        }
        return ends
    }

    /// Sigma1 as the kind asks: with a valid destination ID for its random, and our ephemeral key.
    static func sigma1(_ payload: [UInt8], _ kind: Kind, _ initiator: CASEInitiator) -> [UInt8] {
        guard kind.assisted || kind.ours, var sigma1 = try? Sigma1(decoding: payload) else { return payload }
        if kind.ours { sigma1.initiatorEphemeralPublicKey = initiator.ephemeralPublicKey }
        if kind.assisted {
            let fabric = fabric
            guard
                let destination = try? FabricIdentifiers.destinationID(
                    ipk: fabric.ipk, initiatorRandom: sigma1.initiatorRandom, rootPublicKey: fabric.rootPublicKey,
                    fabricID: fabric.fabricID, nodeID: fabric.nodeID)
            else { return payload }
            sigma1.destinationID = destination
        }
        return sigma1.encoded
    }

    /// Sigma3 sealing `payload` as TBEData3 under the handshake's S3K, its signature first made anew when asked.
    static func sigma3(
        _ payload: [UInt8], _ kind: Kind, _ initiator: CASEInitiator, _ handshake: (sigma1: [UInt8], sigma2: [UInt8])
    ) -> [UInt8]? {
        var plaintext = payload
        if kind.ours, var tbe3 = try? SigmaTBEData3(decoding: payload),
            let sigma2 = try? Sigma2(decoding: handshake.sigma2),
            let signature = try? initiator.signature(
                noc: tbe3.initiatorNOC, icac: tbe3.initiatorICAC, key: initiator.identity.key,
                responderEphemeralPublicKey: sigma2.responderEphemeralPublicKey)
        {
            tbe3.signature = signature
            plaintext = tbe3.encoded
        }
        return try? initiator.sigma3(sealing: plaintext, sigma1: handshake.sigma1, sigma2: handshake.sigma2)
    }

    /// What holds after every event: an answer on the event's exchange, Sigma2 only when a handshake starts,
    /// BUSY only while one runs, and the responder listening again after every end. Returns the end, if any.
    static func check(_ action: Responder.Action, on exchange: UInt8, before: String, _ responder: Responder) -> End? {
        switch action {
        case .send(let sent):
            precondition(sent.exchange == exchange, "an answer on another exchange")
            switch sent.opcode {
            case .caseSigma2:
                precondition(before == "listening" && responder.phase == "awaiting Sigma3", "Sigma2 out of turn")
            case .caseSigma2Resume:
                precondition(
                    before == "listening" && responder.phase == "awaiting resume status", "Sigma2_Resume out of turn")
            case .statusReport:
                precondition(before != "listening" && responder.phase == before, "BUSY out of turn")
                precondition((try? StatusReport(decoding: sent.payload)) != nil, "a BUSY that does not decode")
            default: preconditionFailure("the responder sent \(sent.opcode)")
            }
            return nil
        case .established(let established):
            precondition(responder.phase == "listening", "the responder does not listen after a session")
            precondition(established.reply?.exchange == exchange && established.fabricIndex == 1, "a stray session")
            return .session
        case .failed(let failure):
            precondition(responder.phase == "listening", "the responder does not listen after a failure")
            if let reply = failure.reply {
                precondition(reply.exchange == exchange && reply.opcode == .statusReport, "a stray failure report")
                precondition(
                    (try? StatusReport(decoding: reply.payload)) != nil, "a failure report that does not decode")
            }
            return .failure(failure.error)
        case .drop:
            precondition(responder.phase == before, "a dropped message changed the phase")
            return nil
        }
    }

    /// Seeds from a real initiator's handshake with the device: its Sigma1 and TBEData3 with the harness's help
    /// (a session); that TBEData3 sealed but not signed anew (a signature of another handshake); other NOCs
    /// (Node02_04 of another root; Node01_02, signed with Node01_01's key); its Sigma1 and Sigma3 as sent (the
    /// Sigma3 of another handshake does not decrypt); BUSY, a peer's StatusReport and time-outs.
    static func seeds() -> [[UInt8]] {
        func record(_ kind: UInt8, _ payload: [UInt8]) -> [UInt8] {
            [kind, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        }
        var device = responder
        let initiator = initiator()
        do {
            let sigma1 = try initiator.sigma1().encoded
            guard case .send(let sigma2) = device.handle(.sigma1(payload: sigma1, localSessionID: 1), on: 0) else {
                preconditionFailure("the device refused a real Sigma1")
            }
            let finished = try initiator.finish(sigma1: sigma1, sigma2: sigma2.payload)
            let signature = finished.tbe3.signature
            let stranger = SigmaTBEData3(
                initiatorNOC: Certificates.node0204TLV, initiatorICAC: nil, signature: signature)
            let direct = SigmaTBEData3(initiatorNOC: Certificates.node0102TLV, initiatorICAC: nil, signature: signature)
            let failure = StatusReport.secureChannel(.invalidParameter).encoded
            let open = record(0x30, sigma1)
            return [
                open + record(0x31, finished.tbe3.encoded),
                open + record(0x11, finished.tbe3.encoded),
                open + record(0x31, stranger.encoded) + open + record(0x31, direct.encoded),
                record(0x00, sigma1) + record(0x01, finished.sigma3),
                open + record(0x34, sigma1) + record(0x02, failure) + record(0x03, []) + record(0x01, finished.sigma3)
                    + open + record(0x03, []) + record(0x00, sigma1) + record(0x00, sigma1),
            ]
        } catch {
            preconditionFailure("a real initiator's handshake with the device: \(error)")
        }
    }
}
