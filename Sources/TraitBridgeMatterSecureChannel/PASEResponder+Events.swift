import Crypto
import TraitBridgeMatterCrypto
import TraitBridgeMatterTransport

extension PASEResponder {
    /// Handles one message; the responder's random comes from the system's CSPRNG.
    public mutating func handle(_ event: Event, on exchange: Exchange) -> Action {
        var generator = SystemRandomNumberGenerator()
        return handle(event, on: exchange, using: &generator)
    }

    /// Handles one message, drawing responderRandom from `generator` (tests pass a seeded one; y comes
    /// from OpenSSL's DRBG inside ``VerifierHandshake`` either way).
    public mutating func handle(
        _ event: Event, on exchange: Exchange, using generator: inout some RandomNumberGenerator
    ) -> Action {
        switch (event, state) {
        case (.pbkdfParamRequest(let payload, let localSessionID), .listening):
            return start(payload, localSessionID: localSessionID, on: exchange, using: &generator)
        case (.pbkdfParamRequest, .established):
            return .drop(.sessionEstablished)
        case (.pbkdfParamRequest, .exhausted):
            return .drop(.windowExhausted)
        case (.pbkdfParamRequest, .awaitingPake1(let running)), (.pbkdfParamRequest, .awaitingPake3(let running)):
            guard running.exchange == exchange else {
                let busy = StatusReport.busy(minimumWaitMilliseconds: configuration.busyMinimumWaitMilliseconds)
                return .send(Outgoing(opcode: .statusReport, payload: busy.encoded, exchange: exchange))
            }
            return fail(.unexpectedMessage(received: .pbkdfParamRequest, expected: expected), on: exchange)
        case (.pake1(let payload), .awaitingPake1(let handshake)) where handshake.exchange == exchange:
            return respond(toPake1: payload, handshake)
        case (.pake3(let payload), .awaitingPake3(let handshake)) where handshake.exchange == exchange:
            return confirm(pake3: payload, handshake)
        case (.pake1, .awaitingPake3(let handshake)) where handshake.exchange == exchange:
            return fail(.unexpectedMessage(received: .pasePake1, expected: .pasePake3), on: exchange)
        case (.pake3, .awaitingPake1(let handshake)) where handshake.exchange == exchange:
            return fail(.unexpectedMessage(received: .pasePake3, expected: .pasePake1), on: exchange)
        case (.statusReport(let payload), .awaitingPake1(let handshake)) where handshake.exchange == exchange,
            (.statusReport(let payload), .awaitingPake3(let handshake)) where handshake.exchange == exchange:
            do { return .failed(end(.peerStatusReport(try StatusReport(decoding: payload)), reply: nil)) } catch {
                return .failed(end(.malformedStatusReport(error), reply: nil))
            }
        case (.pake1, _), (.pake3, _), (.statusReport, _):
            return .drop(.notOnHandshakeExchange)
        }
    }

    /// The caller's timer for the running handshake fired: the attempt ends and counts, nothing is sent
    /// (connectedhomeip `HandleSessionEstablishmentTimeout` → `OnSessionEstablishmentError(CHIP_ERROR_TIMEOUT)`).
    /// Nil when no handshake is running.
    public mutating func timeOut() -> Failure? {
        switch state {
        case .awaitingPake1, .awaitingPake3:
            return end(.timedOut, reply: nil)
        case .listening, .established, .exhausted:
            return nil
        }
    }

    /// After an established session failed to commission (its fail-safe expired, or it closed), listen
    /// again; it counts as a failed attempt as in connectedhomeip (`kFailSafeTimerExpired` →
    /// `HandleFailedAttempt`). Returns whether the window is now exhausted.
    public mutating func commissioningFailedAfterEstablishment() -> Bool {
        guard case .established = state else { return state.isExhausted }
        return recordFailure()
    }

    // MARK: Steps

    private mutating func start(
        _ payload: [UInt8], localSessionID: UInt16, on exchange: Exchange,
        using generator: inout some RandomNumberGenerator
    ) -> Action {
        precondition(localSessionID != 0, "session ID 0 is the unsecured session's; allocate another")
        let request: PBKDFParamRequest
        do { request = try PBKDFParamRequest(decoding: payload) } catch {
            return fail(.malformedMessage(error), on: exchange)
        }
        guard request.passcodeID == 0 else { return fail(.unsupportedPasscodeID(request.passcodeID), on: exchange) }
        var responderRandom = [UInt8](repeating: 0, count: PASEConstants.randomByteCount)
        for index in responderRandom.indices { responderRandom[index] = .random(in: .min ... .max, using: &generator) }
        let response = PBKDFParamResponse(
            initiatorRandom: request.initiatorRandom, responderRandom: responderRandom,
            responderSessionID: localSessionID,
            pbkdfParameters: request.hasPBKDFParameters
                ? nil : .init(iterations: UInt32(configuration.iterations), salt: configuration.salt),
            responderSessionParameters: configuration.sessionParameters
        ).encoded
        let context = Spake2Plus.commissioningContext(pbkdfParamRequest: payload, pbkdfParamResponse: response)
        state = .awaitingPake1(
            Handshake(
                exchange: exchange, spake: VerifierHandshake(verifier: configuration.verifier, context: context),
                localSessionID: localSessionID, peerSessionID: request.initiatorSessionID,
                peerSessionParameters: request.initiatorSessionParameters))
        return .send(Outgoing(opcode: .pbkdfParamResponse, payload: response, exchange: exchange))
    }

    private mutating func respond(toPake1 payload: [UInt8], _ handshake: Handshake) -> Action {
        var handshake = handshake
        let pake1: Pake1
        do { pake1 = try Pake1(decoding: payload) } catch {
            return fail(.malformedMessage(error), on: handshake.exchange)
        }
        let pake2: Pake2
        do { pake2 = try handshake.spake.respond(toPake1: pake1.pA) } catch {
            return fail(.handshake(error), on: handshake.exchange)
        }
        state = .awaitingPake3(handshake)
        return .send(Outgoing(opcode: .pasePake2, payload: pake2.encoded, exchange: handshake.exchange))
    }

    private mutating func confirm(pake3 payload: [UInt8], _ handshake: Handshake) -> Action {
        var handshake = handshake
        let pake3: Pake3
        do { pake3 = try Pake3(decoding: payload) } catch {
            return fail(.malformedMessage(error), on: handshake.exchange)
        }
        let ke: SymmetricKey
        do { ke = try handshake.spake.confirm(pake3: pake3.cA) } catch {
            return fail(.handshake(error), on: handshake.exchange)
        }
        state = .established
        let success = StatusReport.secureChannel(.sessionEstablishmentSuccess)
        return .established(
            Established(
                keys: SessionKeys(paseKe: ke), localSessionID: handshake.localSessionID,
                peerSessionID: handshake.peerSessionID, peerSessionParameters: handshake.peerSessionParameters,
                reply: Outgoing(opcode: .statusReport, payload: success.encoded, exchange: handshake.exchange)))
    }

    // MARK: Ending an attempt

    /// The message the running handshake waits for (Pake1 when none runs).
    private var expected: SecureChannelOpcode {
        if case .awaitingPake3 = state { return .pasePake3 }
        return .pasePake1
    }

    /// Ends the attempt with StatusReport(FAILURE, INVALID_PARAMETER) on `exchange`.
    private mutating func fail(_ error: PASEError, on exchange: Exchange) -> Action {
        let report = StatusReport.secureChannel(.invalidParameter)
        return .failed(
            end(error, reply: Outgoing(opcode: .statusReport, payload: report.encoded, exchange: exchange)))
    }

    /// Ends the running attempt (if any), counting it.
    private mutating func end(_ error: PASEError, reply: Outgoing?) -> Failure {
        let isExhausted = recordFailure()
        return Failure(error: error, reply: reply, failedAttempts: failedAttempts, isWindowExhausted: isExhausted)
    }

    /// Counts a failed attempt and goes back to listening, or to exhausted at the bound.
    private mutating func recordFailure() -> Bool {
        failedAttempts += 1
        state = failedAttempts >= configuration.maxFailedAttempts ? .exhausted : .listening
        return state.isExhausted
    }
}

extension PASEResponder.State {
    var isExhausted: Bool {
        if case .exhausted = self { return true }
        return false
    }
}
