import Crypto

/// The initiator's side of CASE resumption (Matter Core §4.14.2.2–4.14.2.4), as connectedhomeip
/// `CASESession::SendSigma1` (with a stored record) and `HandleSigma2Resume` go: Sigma1 carries the
/// record's resumption ID and the MIC under S1RK; Sigma2_Resume's MIC under S2RK over its new ID is
/// checked; the session keys come from the shared secret and initiatorRandom ‖ the resumed ID.
extension CASEInitiator {
    /// What a session leaves the initiator for resuming it: the responder's resumption ID and the shared
    /// secret. Printing shows neither.
    public struct ResumptionTicket: Sendable, CustomStringConvertible {
        public let resumptionID: [UInt8]
        let sharedSecret: [UInt8]

        /// A ticket of `resumptionID` and `sharedSecret` (32 bytes), e.g. to try one the device never issued.
        public init(resumptionID: [UInt8], sharedSecret: [UInt8]) {
            self.resumptionID = resumptionID
            self.sharedSecret = sharedSecret
        }

        public var description: String { "ResumptionTicket(redacted)" }
    }

    /// The resumed session: its keys, the responder's Sigma2_Resume as read, and the ticket for next time.
    public struct Resumed {
        public let keys: SessionKeys
        public let sigma2Resume: Sigma2Resume
        public let ticket: ResumptionTicket
    }

    /// Sigma1 asking to resume `ticket`'s session, with its destination ID as for a full handshake;
    /// `mic` replaces the initiatorResumeMIC when given (to test a wrong one).
    public func sigma1(
        resuming ticket: ResumptionTicket, mic: [UInt8]? = nil, parameters: SessionParameters? = .mrpDefaults
    ) throws -> Sigma1 {
        var sigma1 = try self.sigma1(parameters: parameters)
        sigma1.resumptionID = ticket.resumptionID
        sigma1.initiatorResumeMIC =
            try mic
            ?? CASEKeySchedule.resumeMIC(
                .sigma1, sharedSecret: SymmetricKey(data: ticket.sharedSecret), initiatorRandom: random,
                resumptionID: ticket.resumptionID)
        return sigma1
    }

    /// Checks Sigma2_Resume's MIC for `ticket`'s session and derives the resumed session's keys; the
    /// caller then sends StatusReport(SUCCESS).
    /// - Throws: ``Refusal/sigma2ResumeMIC`` when the MIC is not the one the shared secret gives.
    public func finish(sigma2Resume payload: [UInt8], ticket: ResumptionTicket) throws -> Resumed {
        let message = try Sigma2Resume(decoding: payload)
        let secret = SymmetricKey(data: ticket.sharedSecret)
        guard
            CASEKeySchedule.isResumeMIC(
                message.sigma2ResumeMIC, .sigma2, sharedSecret: secret, initiatorRandom: random,
                resumptionID: message.resumptionID)
        else { throw Refusal.sigma2ResumeMIC }
        let keys = CASEKeySchedule.resumedSessionKeys(
            sharedSecret: secret, initiatorRandom: random, resumptionID: ticket.resumptionID)
        return Resumed(
            keys: keys, sigma2Resume: message,
            ticket: ResumptionTicket(resumptionID: message.resumptionID, sharedSecret: ticket.sharedSecret))
    }
}
