import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// Receiving: every datagram is hostile until its header decodes and, on a secure session, its MIC
/// verifies; whatever fails is dropped with a debug line and changes nothing.
extension MatterNode {
    mutating func receive(
        _ bytes: [UInt8], from peer: Peer, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        let from = ["tb.matter.peer": "\(peer)"]
        guard bytes.count <= limits.maxDatagramBytes else {
            log(
                .warning,
                "Matter: a datagram of \(bytes.count) bytes is over the \(limits.maxDatagramBytes)-byte"
                    + " bound of Matter over UDP: dropped", from)
            return
        }
        let header: MessageHeader
        do { header = try MessageHeader.decode(bytes).header } catch {
            log(.debug, "Matter: a datagram that is no Matter message was dropped: \(error)", from)
            return
        }
        guard header.sessionType == .unicast else {
            log(.debug, "Matter: a group message was dropped: this node is in no group", from)
            return
        }
        if header.isUnsecured {
            receiveUnsecured(bytes, from: peer, now: now, using: &generator)
        } else {
            receiveSecure(bytes, sessionID: header.sessionID, from: peer, now: now, using: &generator)
        }
    }

    private mutating func receiveUnsecured(
        _ bytes: [UInt8], from peer: Peer, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        let from = ["tb.matter.peer": "\(peer)"]
        let message: Message
        do { message = try Message.decodeUnsecured(bytes) } catch {
            log(.debug, "Matter: an unsecured message that does not decode was dropped: \(error)", from)
            return
        }
        guard let ephemeralNodeID = message.header.sourceNodeID else {
            log(
                .debug,
                "Matter: an unsecured message without a source node ID was dropped: this node only"
                    + " answers initiators", from)
            return
        }
        guard message.protocolHeader.protocolID == .secureChannel else {
            log(
                .debug,
                "Matter: an unsecured message of \(message.protocolHeader.protocolID) was dropped: only"
                    + " the secure channel runs without a session", from)
            return
        }
        guard
            let (session, evicted) = sessions.unsecuredSession(
                peer: peer, ephemeralNodeID: ephemeralNodeID, now: now, protecting: handshake?.exchange.session)
        else { return }
        if let evicted {
            exchanges.closeSession(evicted.key)
            log(
                .notice,
                "Matter: \(limits.unsecuredSessions) unsecured sessions are held: the least recently"
                    + " active one (\(evicted.peer)) made room", from)
        }
        let verdict = sessions.receiveUnsecured(message.header.messageCounter, on: session)
        received(message, on: session, isDuplicate: verdict != .new, now: now, using: &generator)
    }

    private mutating func receiveSecure(
        _ bytes: [UInt8], sessionID: UInt16, from peer: Peer, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        let from = ["tb.matter.peer": "\(peer)", "tb.matter.session": "\(sessionID)"]
        guard var session = sessions.secure[sessionID] else {
            log(.debug, "Matter: a message for unknown session \(sessionID) was dropped", from)
            return
        }
        let message: Message
        do {
            message = try Message.open(bytes, key: session.keys.initiatorToResponder, senderNodeID: session.peerNodeID)
        } catch {
            log(.debug, "Matter: a message on session \(sessionID) that does not open was dropped: \(error)", from)
            return
        }
        let verdict = session.replay.receive(message.header.messageCounter)
        session.peer = peer
        session.lastActive = now
        sessions.update(session)
        received(message, on: session.key, isDuplicate: verdict != .new, now: now, using: &generator)
    }

    /// The exchange layer's part (acks, duplicates, routing), then the message to its protocol.
    private mutating func received(
        _ message: Message, on session: SessionKey, isDuplicate: Bool, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        let routed: [ExchangeLayer.Effect]
        do {
            routed = try exchanges.received(
                message.protocolHeader, messageCounter: message.header.messageCounter, on: session,
                isDuplicate: isDuplicate, now: now)
        } catch {
            log(.warning, "Matter: a message was dropped unacknowledged: \(error)")
            return
        }
        for effect in routed {
            if case .deliver(let exchange, _) = effect {
                deliver(message, on: exchange, now: now, using: &generator)
            } else {
                apply(effect, now: now, using: &generator)
            }
        }
    }

    /// A message for a protocol: the secure channel on unsecured sessions (PASE, CASE); on secure
    /// sessions the interaction model, and the peer's CloseSession.
    private mutating func deliver(
        _ message: Message, on exchange: ExchangeKey, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        let header = message.protocolHeader
        if SessionTable<Peer>.isUnsecured(exchange.session) {
            receiveSecureChannel(message, on: exchange, now: now, using: &generator)
            return
        }
        guard let session = sessions.secure(exchange.session) else { return }
        if session.closesAfterReply {
            log(
                .debug,
                "Matter: a message on session \(session.localSessionID), which closes once its reply is delivered,"
                    + " was acknowledged and dropped")
            return closeExchange(exchange, now: now, using: &generator)
        }
        if header.protocolID == .interactionModel {
            return receiveInteraction(message, on: exchange, session: session, now: now, using: &generator)
        }
        let metadata = [
            "tb.matter.session": "\(session.localSessionID)", "tb.matter.protocol": "\(header.protocolID)",
            "tb.matter.opcode": "\(header.opcode)",
        ]
        if header.protocolID == .secureChannel, header.opcode == SecureChannelOpcode.statusReport.rawValue,
            let report = try? StatusReport(decoding: message.payload), report.secureChannelStatus == .closeSession
        {
            dropped(session)
            log(.info, "Matter: the peer closed session \(session.localSessionID)", metadata)
            return
        }
        log(
            .debug,
            "Matter: \(header.protocolID) opcode \(header.opcode) on a secure session is not served:"
                + " acknowledged and dropped", metadata)
        closeExchange(exchange, now: now, using: &generator)
    }
}
