import Crypto
import TraitBridgeMatterCredentials
import TraitBridgeMatterCrypto
import TraitBridgeMatterTransport

extension CASEResponder {
    /// Handles one message; randoms from the system's CSPRNG.
    public mutating func handle(_ event: Event, on exchange: Exchange) -> Action {
        var generator = SystemRandomNumberGenerator()
        return handle(event, on: exchange, using: &generator)
    }

    /// Handles one message, drawing responderRandom and the resumption ID from `generator` (tests pass a
    /// seeded one); the ephemeral key comes from swift-crypto either way.
    public mutating func handle(
        _ event: Event, on exchange: Exchange, using generator: inout some RandomNumberGenerator
    ) -> Action {
        switch (event, state) {
        case (.sigma1(let payload, let localSessionID), .listening):
            return start(payload, localSessionID: localSessionID, on: exchange, using: &generator)
        case (.sigma1, _):
            guard state.exchange == exchange else {
                let busy = StatusReport.busy(minimumWaitMilliseconds: configuration.busyMinimumWaitMilliseconds)
                return .send(Outgoing(opcode: .statusReport, payload: busy.encoded, exchange: exchange))
            }
            let expected: SecureChannelOpcode = if case .awaitingSigma3 = state { .caseSigma3 } else { .statusReport }
            state = .listening
            return fail(.unexpectedMessage(received: .caseSigma1, expected: expected), on: exchange)
        case (.sigma3(let payload), .awaitingSigma3(let handshake)) where handshake.exchange == exchange:
            state = .listening
            return finish(sigma3: payload, handshake)
        case (.sigma3, .awaitingResumeStatus(let resumption)) where resumption.exchange == exchange:
            state = .listening
            return fail(.unexpectedMessage(received: .caseSigma3, expected: .statusReport), on: exchange)
        case (.statusReport(let payload), .awaitingResumeStatus(let resumption)) where resumption.exchange == exchange:
            state = .listening
            return finishResumption(statusReport: payload, resumption)
        case (.statusReport(let payload), .awaitingSigma3(let handshake)) where handshake.exchange == exchange:
            state = .listening
            return Self.peerEnded(statusReport: payload)
        case (.sigma3, _), (.statusReport, _):
            return .drop(.notOnHandshakeExchange)
        }
    }

    /// The caller's timer for the running handshake fired: it ends, nothing is sent (connectedhomeip
    /// `OnResponseTimeout` → `OnSessionEstablishmentError(CHIP_ERROR_TIMEOUT)`). Nil when none runs.
    public mutating func timeOut() -> Failure? {
        guard state.exchange != nil else { return nil }
        state = .listening
        return Failure(error: .timedOut, reply: nil)
    }

    // MARK: Steps

    private mutating func start(
        _ payload: [UInt8], localSessionID: UInt16, on exchange: Exchange,
        using generator: inout some RandomNumberGenerator
    ) -> Action {
        precondition(localSessionID != 0, "session ID 0 is the unsecured session's; allocate another")
        let sigma1: Sigma1
        do { sigma1 = try Sigma1(decoding: payload) } catch { return fail(.malformedMessage(error), on: exchange) }
        // Every fabric is tried, so the time taken does not tell which one matched.
        var matched: CASEFabric?
        for fabric in configuration.fabrics
        where fabric.isDestination(sigma1.destinationID, initiatorRandom: sigma1.initiatorRandom) && matched == nil {
            matched = fabric
        }
        if let resumed = resume(sigma1, localSessionID: localSessionID, on: exchange, using: &generator) {
            return resumed
        }
        guard let fabric = matched else {
            return fail(.noSharedTrustRoot, status: .noSharedTrustRoots, on: exchange)
        }
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let secret: SymmetricKey
        do {
            secret = try CASEKeySchedule.sharedSecret(
                privateKey: ephemeral, peerPublicKey: sigma1.initiatorEphemeralPublicKey)
        } catch { return fail(.invalidEphemeralKey, on: exchange) }
        let responderKey = Array(ephemeral.publicKey.x963Representation)
        let responderRandom = Self.randomBytes(CASEConstants.randomByteCount, using: &generator)
        let resumptionID = Self.randomBytes(CASEConstants.resumptionIDByteCount, using: &generator)

        let tbs = SigmaTBSData(
            senderNOC: fabric.chain.noc.tlv, senderICAC: fabric.chain.icac?.tlv, senderEphemeralPublicKey: responderKey,
            receiverEphemeralPublicKey: sigma1.initiatorEphemeralPublicKey)
        let encrypted2: [UInt8]
        do {
            let tbe = SigmaTBEData2(
                responderNOC: fabric.chain.noc.tlv, responderICAC: fabric.chain.icac?.tlv,
                signature: try fabric.operationalKey.sign(tbs.encoded), resumptionID: resumptionID)
            let s2k = CASEKeySchedule.sigma2Key(
                sharedSecret: secret, ipk: fabric.ipk, responderRandom: responderRandom,
                responderEphemeralPublicKey: responderKey, sigma1: payload)
            encrypted2 = try CASEKeySchedule.seal(tbe.encoded, key: s2k, nonce: CASEKeySchedule.sigma2Nonce)
        } catch { return fail(.internalFailure("signing or sealing TBEData2 failed"), on: exchange) }

        let sigma2 = Sigma2(
            responderRandom: responderRandom, responderSessionID: localSessionID,
            responderEphemeralPublicKey: responderKey, encrypted2: encrypted2,
            responderSessionParameters: configuration.sessionParameters
        ).encoded
        state = .awaitingSigma3(
            Handshake(
                exchange: exchange, fabric: fabric, sharedSecret: CASEKeySchedule.bytes(secret), sigma1: payload,
                sigma2: sigma2, initiatorEphemeralPublicKey: sigma1.initiatorEphemeralPublicKey,
                responderEphemeralPublicKey: responderKey, localSessionID: localSessionID,
                peerSessionID: sigma1.initiatorSessionID, peerSessionParameters: sigma1.initiatorSessionParameters,
                resumptionID: resumptionID))
        return .send(Outgoing(opcode: .caseSigma2, payload: sigma2, exchange: exchange))
    }

    private mutating func finish(sigma3 payload: [UInt8], _ handshake: Handshake) -> Action {
        let exchange = handshake.exchange
        let sigma3: Sigma3
        do { sigma3 = try Sigma3(decoding: payload) } catch { return fail(.malformedMessage(error), on: exchange) }
        let secret = SymmetricKey(data: handshake.sharedSecret)
        let s3k = CASEKeySchedule.sigma3Key(
            sharedSecret: secret, ipk: handshake.fabric.ipk, sigma1: handshake.sigma1, sigma2: handshake.sigma2)
        let plaintext: [UInt8]
        do {
            plaintext = try CASEKeySchedule.open(sigma3.encrypted3, key: s3k, nonce: CASEKeySchedule.sigma3Nonce)
        } catch {
            return fail(.decryptionFailed, on: exchange)
        }
        let tbe: SigmaTBEData3
        do { tbe = try SigmaTBEData3(decoding: plaintext) } catch {
            return fail(.malformedMessage(error), on: exchange)
        }
        let chain: CertificateChain
        do {
            chain = try verifiedChain(tbe, root: handshake.fabric.chain.rcac)
        } catch { return fail(error, on: exchange) }
        guard chain.fabricID == handshake.fabric.fabricID else {
            return fail(.fabricMismatch(expected: handshake.fabric.fabricID, found: chain.fabricID), on: exchange)
        }
        let tbs = SigmaTBSData(
            senderNOC: tbe.initiatorNOC, senderICAC: tbe.initiatorICAC,
            senderEphemeralPublicKey: handshake.initiatorEphemeralPublicKey,
            receiverEphemeralPublicKey: handshake.responderEphemeralPublicKey)
        guard let key = try? P256.Signing.PublicKey(x963Representation: chain.noc.publicKey),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: tbe.signature),
            key.isValidSignature(signature, for: tbs.encoded)
        else { return fail(.signature, on: exchange) }

        let keys = CASEKeySchedule.sessionKeys(
            sharedSecret: secret, ipk: handshake.fabric.ipk, sigma1: handshake.sigma1, sigma2: handshake.sigma2,
            sigma3: payload)
        // Resumable from now on, as connectedhomeip `HandleSigma3c` saves before answering SUCCESS.
        resumptions.save(
            ResumptionStore.Record(
                resumptionID: handshake.resumptionID, sharedSecret: handshake.sharedSecret, peerNodeID: chain.nodeID,
                peerCASEAuthenticatedTags: chain.caseAuthenticatedTags, fabricIndex: handshake.fabric.fabricIndex))
        let success = StatusReport.secureChannel(.sessionEstablishmentSuccess)
        return .established(
            Established(
                keys: keys, localSessionID: handshake.localSessionID, peerSessionID: handshake.peerSessionID,
                peerNodeID: chain.nodeID, peerCASEAuthenticatedTags: chain.caseAuthenticatedTags,
                fabricIndex: handshake.fabric.fabricIndex, peerSessionParameters: handshake.peerSessionParameters,
                reply: Outgoing(opcode: .statusReport, payload: success.encoded, exchange: exchange),
                isResumption: false))
    }

    /// The initiator's NOC and ICAC decoded and verified up to the fabric's root.
    private func verifiedChain(_ tbe: SigmaTBEData3, root: OperationalCertificate) throws(CASEError) -> CertificateChain
    {
        let noc: OperationalCertificate
        do { noc = try OperationalCertificate(tlv: tbe.initiatorNOC) } catch {
            throw .malformedCertificate(.noc, error)
        }
        var icac: OperationalCertificate?
        // An empty ICAC is no ICAC (connectedhomeip `FabricInfo::VerifyCredentials` skips an empty one).
        if let bytes = tbe.initiatorICAC, !bytes.isEmpty {
            do { icac = try OperationalCertificate(tlv: bytes) } catch { throw .malformedCertificate(.icac, error) }
        }
        do {
            return try CertificateChain.verify(noc: noc, icac: icac, rcac: root, policy: configuration.validityPolicy)
        } catch { throw .certificateChain(error) }
    }

    /// The initiator's StatusReport ended the handshake (or a report that is none).
    static func peerEnded(statusReport payload: [UInt8]) -> Action {
        do {
            return .failed(Failure(error: .peerStatusReport(try StatusReport(decoding: payload)), reply: nil))
        } catch {
            return .failed(Failure(error: .malformedStatusReport(error), reply: nil))
        }
    }

    /// Ends the handshake with StatusReport(FAILURE, `status`) on `exchange`.
    func fail(
        _ error: CASEError, status: SecureChannelStatus = .invalidParameter, on exchange: Exchange
    ) -> Action {
        let report = StatusReport.secureChannel(status)
        return .failed(
            Failure(error: error, reply: Outgoing(opcode: .statusReport, payload: report.encoded, exchange: exchange)))
    }

    static func randomBytes(_ count: Int, using generator: inout some RandomNumberGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
