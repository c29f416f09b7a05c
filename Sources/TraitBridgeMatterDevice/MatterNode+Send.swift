import TraitBridgeMatterCommissioning
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// Sending and the time: messages framed for their session (in clear to the initiator's ephemeral
/// node ID, or sealed with R2I), reliable ones handed to MRP, and what ``ExchangeLayer`` asks at a tick.
extension MatterNode {
    mutating func tick(now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator) {
        for effect in exchanges.tick(now: now, using: &generator) { apply(effect, now: now, using: &generator) }
        if let running = handshake, running.deadline <= now { abandonHandshake(now: now, using: &generator) }
        if let running = caseHandshake, running.deadline <= now { abandonCASE(now: now, using: &generator) }
        let state = dataModel.root.state
        if (state.failSafe.map { $0.deadline <= now } ?? false) || (state.window.map { $0.deadline <= now } ?? false) {
            apply(dataModel.advance(to: now), from: nil, now: now)
        }
        expireDeferredInvokes(now: now, using: &generator)
        reportChanges(now: now, using: &generator)
    }

    /// Everything the exchange layer asks but a delivery.
    mutating func apply(
        _ effect: ExchangeLayer.Effect, now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) {
        switch effect {
        case .deliver:
            preconditionFailure("deliveries are handled where messages are received")
        case .sendStandaloneAck(let exchange, let counter):
            let header = ProtocolHeader.standaloneAck(of: counter, on: exchange)
            do {
                if let (bytes, _, peer) = try frame(header, payload: [], on: exchange.session) {
                    effects.append(.send(bytes, to: peer))
                }
            } catch {
                log(.warning, "Matter: a standalone ack on \(exchange) could not be sent: \(error)")
            }
        case .retransmit(let exchange, let bytes):
            if let peer = peer(of: exchange.session) { effects.append(.send(bytes, to: peer)) }
        case .exchangeFailed(let exchange, let counter):
            log(
                .info, "Matter: message \(counter) on \(exchange) was never acknowledged: the exchange is closed",
                ["tb.matter.peer": peerName(of: exchange.session)])
            if handshake?.exchange == exchange { abandonHandshake(now: now, using: &generator) }
            if caseHandshake?.exchange == exchange { abandonCASE(now: now, using: &generator) }
            for id in interactions.exchangeClosed(exchange) {
                log(.info, "Matter: subscription \(id) ended: its report was never acknowledged")
            }
        }
    }

    /// Sends `payload` reliably on `exchange`, the ack we owe piggy-backed.
    mutating func send(
        _ payload: [UInt8], opcode: UInt8, protocolID: ProtocolID = .secureChannel, on exchange: ExchangeKey,
        now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) {
        do {
            let header = try exchanges.header(for: exchange, protocolID: protocolID, opcode: opcode, isReliable: true)
            guard let (bytes, counter, peer) = try frame(header, payload: payload, on: exchange.session) else {
                log(.warning, "Matter: nothing sent on \(exchange): its session is gone")
                return
            }
            // The peer just spoke: it counts as active (SDK `CalculateNextRetransTime`).
            try exchanges.sent(
                bytes, messageCounter: counter, on: exchange, isReliable: true,
                baseInterval: MRPParameters.defaults.baseInterval(peerIsActive: true), now: now, using: &generator)
            effects.append(.send(bytes, to: peer))
        } catch {
            log(.warning, "Matter: a message on \(exchange) could not be sent: \(error)")
        }
    }

    /// Closes `exchange`; an ack still owed goes alone now.
    mutating func closeExchange(
        _ exchange: ExchangeKey, now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) {
        for effect in exchanges.close(exchange) { apply(effect, now: now, using: &generator) }
    }

    /// The datagram of a message on `session`, its counter and where it goes; nil when the session is gone.
    private mutating func frame(
        _ protocolHeader: ProtocolHeader, payload: [UInt8], on session: SessionKey
    ) throws(TransportError) -> (bytes: [UInt8], counter: UInt32, peer: Peer)? {
        if let unsecured = sessions.unsecured(session) {
            let counter = try unsecuredCounter.next()
            let header = MessageHeader(
                sessionID: 0, messageCounter: counter, destination: .node(unsecured.ephemeralNodeID))
            let message = Message(header: header, protocolHeader: protocolHeader, payload: payload)
            return (message.encodedUnsecured, counter, unsecured.peer)
        }
        guard var secure = sessions.secure(session) else { return nil }
        let counter = try secure.counter.next()
        sessions.update(secure)
        let header = MessageHeader(sessionID: secure.peerSessionID, messageCounter: counter)
        let message = Message(header: header, protocolHeader: protocolHeader, payload: payload)
        // Our node ID in the nonce: the fabric's on CASE, unspecified (0) on PASE.
        let sealed = try message.sealed(key: secure.keys.responderToInitiator, senderNodeID: secure.localNodeID)
        return (sealed, counter, secure.peer)
    }

    func peer(of session: SessionKey) -> Peer? { sessions.unsecured(session)?.peer ?? sessions.secure(session)?.peer }

    func peerName(of session: SessionKey) -> String { peer(of: session).map { "\($0)" } ?? "?" }
}
