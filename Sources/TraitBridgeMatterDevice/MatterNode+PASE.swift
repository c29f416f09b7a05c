import TraitBridgeMatterCommissioning
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// The secure channel on unsecured sessions: PASE through ``PASEResponder`` (CASE's messages go on to
/// ``receiveCASE``), its answers sent reliably on the handshake's exchange, and on success a secure
/// session in the table.
extension MatterNode {
    mutating func receiveSecureChannel(
        _ message: Message, on exchange: ExchangeKey, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        let payload = message.payload
        let event: PASEResponder<ExchangeKey>.Event
        switch SecureChannelOpcode(rawValue: message.protocolHeader.opcode) {
        case .pbkdfParamRequest:
            guard isCommissioningWindowOpen else {
                log(
                    .info, "Matter: a PASE request arrived while the commissioning window is closed: dropped",
                    ["tb.matter.peer": peerName(of: exchange.session)])
                return closeExchange(exchange, now: now, using: &generator)
            }
            event = .pbkdfParamRequest(payload: payload, localSessionID: sessions.freeLocalSessionID())
        case .pasePake1: event = .pake1(payload: payload)
        case .pasePake3: event = .pake3(payload: payload)
        case .statusReport where caseHandshake?.exchange == exchange:
            return receiveCASE(.statusReport(payload: payload), on: exchange, now: now, using: &generator)
        case .statusReport: event = .statusReport(payload: payload)
        case .caseSigma1:
            let localSessionID = sessions.freeLocalSessionID()
            return receiveCASE(
                .sigma1(payload: payload, localSessionID: localSessionID), on: exchange, now: now, using: &generator)
        case .caseSigma3: return receiveCASE(.sigma3(payload: payload), on: exchange, now: now, using: &generator)
        default:
            log(
                .debug,
                "Matter: secure channel opcode \(message.protocolHeader.opcode) without a session is not"
                    + " served: dropped", ["tb.matter.peer": peerName(of: exchange.session)])
            return closeExchange(exchange, now: now, using: &generator)
        }
        handle(pase.handle(event, on: exchange, using: &generator), on: exchange, now: now, using: &generator)
    }

    private mutating func handle(
        _ action: PASEResponder<ExchangeKey>.Action, on exchange: ExchangeKey, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        let peer = ["tb.matter.peer": peerName(of: exchange.session)]
        switch action {
        case .send(let outgoing):
            send(outgoing.payload, opcode: outgoing.opcode.rawValue, on: outgoing.exchange, now: now, using: &generator)
            if outgoing.opcode == .statusReport {
                log(.info, "Matter: a second commissioner was answered BUSY while a PASE handshake runs", peer)
                closeExchange(outgoing.exchange, now: now, using: &generator)
            } else if outgoing.opcode == .pbkdfParamResponse {
                handshake = (outgoing.exchange, now + limits.handshakeTimeout)
                log(.debug, "Matter: PASE started", peer)
            }
        case .established(let established):
            handshake = nil
            // Listening again while the window is open: a commissioner whose commissioning failed after
            // PASE (or that restarted) may run PASE anew; each session holds a place in the bounded table.
            pase = PASEResponder(configuration: pase.configuration)
            // Its unsecured session carried the message just handled, so it is there.
            guard let address = sessions.unsecured(exchange.session)?.peer else { return }
            let session = SessionTable<Peer>.Secure(
                localSessionID: established.localSessionID, peerSessionID: established.peerSessionID, kind: .pase,
                fabricIndex: 0, localNodeID: 0, peerNodeID: 0, peer: address,
                keys: established.keys, counter: MessageCounter(kind: .secureSession, using: &generator),
                lastActive: now)
            install(
                session, reply: (established.reply.payload, established.reply.opcode.rawValue), on: exchange,
                saying: "Matter: PASE succeeded: session \(session.localSessionID) established", peer: peer, now: now,
                using: &generator)
        case .failed(let failure):
            handshake = nil
            if let reply = failure.reply {
                send(reply.payload, opcode: reply.opcode.rawValue, on: reply.exchange, now: now, using: &generator)
            }
            closeExchange(exchange, now: now, using: &generator)
            logFailure(failure, peer: peer)
        case .drop(let reason):
            log(.debug, "Matter: a PASE message was dropped (\(reason))", peer)
            closeExchange(exchange, now: now, using: &generator)
        }
    }

    /// A handshake's session goes into the table (the least recently active one out at the bound), its last
    /// message is sent and its exchange closed; the line `saying` and the edge's notice follow.
    mutating func install(
        _ session: SessionTable<Peer>.Secure, reply: (payload: [UInt8], opcode: UInt8)?, on exchange: ExchangeKey,
        saying message: String, peer: [String: String], now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        if let evicted = sessions.install(session) { evict(evicted) }
        if let reply { send(reply.payload, opcode: reply.opcode, on: exchange, now: now, using: &generator) }
        closeExchange(exchange, now: now, using: &generator)
        log(.notice, message, peer.merging(["tb.matter.session": "\(session.localSessionID)"]) { $1 })
        let established = EstablishedSession(
            localSessionID: session.localSessionID, peerSessionID: session.peerSessionID, peer: session.peer)
        effects.append(.sessionEstablished(established))
    }

    mutating func logFailure(_ failure: PASEResponder<ExchangeKey>.Failure, peer: [String: String]) {
        log(.warning, "Matter: PASE failed: \(failure.error) (\(failure.failedAttempts) failed in this window)", peer)
        if failure.isWindowExhausted {
            isCommissioningWindowOpen = false
            log(
                .warning,
                "Matter: \(failure.failedAttempts) PASE attempts failed: the commissioning window is"
                    + " closed (Core §5.5) — open a new one to commission", peer)
        }
    }

    /// The running handshake's time is up, or its exchange gave up: the attempt ends and counts.
    mutating func abandonHandshake(now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator) {
        guard let running = handshake else { return }
        handshake = nil
        closeExchange(running.exchange, now: now, using: &generator)
        if let failure = pase.timeOut() {
            logFailure(failure, peer: ["tb.matter.peer": peerName(of: running.exchange.session)])
        }
    }
}
