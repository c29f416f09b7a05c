import Crypto
import TraitBridgeMatterTransport

/// CASE resumption on the responder (Matter Core §4.14.2.2–4.14.2.4), as connectedhomeip
/// `CASESession::HandleSigma1` (`TryResumeSession`), `PrepareSigma2Resume` and `OnSuccessStatusReport` go.
extension CASEResponder {
    /// Sigma2_Resume for a Sigma1 that resumes a held session: nil (so a full Sigma2 follows) when Sigma1
    /// asks for none, names no record, names a record of a fabric no longer installed, or its MIC under
    /// S1RK does not check out.
    mutating func resume(
        _ sigma1: Sigma1, localSessionID: UInt16, on exchange: Exchange,
        using generator: inout some RandomNumberGenerator
    ) -> Action? {
        guard let resumptionID = sigma1.resumptionID, let mic = sigma1.initiatorResumeMIC,
            let record = resumptions.record(for: resumptionID),
            configuration.fabrics.contains(where: { $0.fabricIndex == record.fabricIndex })
        else { return nil }
        let secret = SymmetricKey(data: record.sharedSecret)
        guard
            CASEKeySchedule.isResumeMIC(
                mic, .sigma1, sharedSecret: secret, initiatorRandom: sigma1.initiatorRandom,
                resumptionID: resumptionID)
        else { return nil }
        let newResumptionID = Self.randomBytes(CASEConstants.resumptionIDByteCount, using: &generator)
        let sigma2ResumeMIC: [UInt8]
        do {
            sigma2ResumeMIC = try CASEKeySchedule.resumeMIC(
                .sigma2, sharedSecret: secret, initiatorRandom: sigma1.initiatorRandom, resumptionID: newResumptionID)
        } catch {
            return fail(.internalFailure("sealing Sigma2_Resume's MIC failed (\(error))"), on: exchange)
        }
        let message = Sigma2Resume(
            resumptionID: newResumptionID, sigma2ResumeMIC: sigma2ResumeMIC, responderSessionID: localSessionID,
            responderSessionParameters: configuration.sessionParameters)
        state = .awaitingResumeStatus(
            Resumption(
                exchange: exchange, record: record, initiatorRandom: sigma1.initiatorRandom,
                newResumptionID: newResumptionID, localSessionID: localSessionID,
                peerSessionID: sigma1.initiatorSessionID, peerSessionParameters: sigma1.initiatorSessionParameters))
        return .send(Outgoing(opcode: .caseSigma2Resume, payload: message.encoded, exchange: exchange))
    }

    /// The initiator's answer to Sigma2_Resume: SUCCESS establishes the session (keys from the record's
    /// secret, initiatorRandom and the resumed ID) and moves the record to the new ID; anything else ends
    /// the resumption, the record kept (the SDK's `OnFailureStatusReport` keeps it too).
    mutating func finishResumption(statusReport payload: [UInt8], _ resumption: Resumption) -> Action {
        guard let report = try? StatusReport(decoding: payload), report.generalCode == .success,
            report.secureChannelStatus == .sessionEstablishmentSuccess
        else { return Self.peerEnded(statusReport: payload) }
        let record = resumption.record
        guard configuration.fabrics.contains(where: { $0.fabricIndex == record.fabricIndex }) else {
            // The fabric left while Sigma2_Resume was out; its records went with it.
            return .failed(Failure(error: .noSharedTrustRoot, reply: nil))
        }
        let keys = CASEKeySchedule.resumedSessionKeys(
            sharedSecret: SymmetricKey(data: record.sharedSecret), initiatorRandom: resumption.initiatorRandom,
            resumptionID: record.resumptionID)
        resumptions.remove(resumptionID: record.resumptionID)
        resumptions.save(record.renamed(resumption.newResumptionID))
        return .established(
            Established(
                keys: keys, localSessionID: resumption.localSessionID, peerSessionID: resumption.peerSessionID,
                peerNodeID: record.peerNodeID, peerCASEAuthenticatedTags: record.peerCASEAuthenticatedTags,
                fabricIndex: record.fabricIndex, peerSessionParameters: resumption.peerSessionParameters, reply: nil,
                isResumption: true))
    }
}
