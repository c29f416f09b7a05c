import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials
import TraitBridgeMatterCrypto
import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// CASE on unsecured sessions (Core §4.14.2): Sigma1 and Sigma3 through ``CASEResponder`` against
/// the fabrics the commissioning state holds, and on success an operational session in the table.
/// Also where the fabric table's changes reach the node: CASE's fabrics, sessions of a fabric that
/// is gone, and the announcement.
extension MatterNode {
    mutating func receiveCASE(
        _ event: CASEResponder<ExchangeKey>.Event, on exchange: ExchangeKey, now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) {
        let peer = ["tb.matter.peer": peerName(of: exchange.session)]
        switch caseResponder.handle(event, on: exchange, using: &generator) {
        case .send(let outgoing):
            send(outgoing.payload, opcode: outgoing.opcode.rawValue, on: outgoing.exchange, now: now, using: &generator)
            if outgoing.opcode == .statusReport {
                log(.info, "Matter: a second CASE initiator was answered BUSY while a handshake runs", peer)
                closeExchange(outgoing.exchange, now: now, using: &generator)
            } else {
                caseHandshake = (outgoing.exchange, now + limits.handshakeTimeout)
                log(
                    .debug,
                    outgoing.opcode == .caseSigma2Resume ? "Matter: CASE resumption started" : "Matter: CASE started",
                    peer)
            }
        case .established(let established):
            caseHandshake = nil
            guard let address = sessions.unsecured(exchange.session)?.peer,
                let fabric = dataModel.root.state.fabric(established.fabricIndex)
            else { return }
            let session = SessionTable<Peer>.Secure(
                localSessionID: established.localSessionID, peerSessionID: established.peerSessionID, kind: .case,
                fabricIndex: established.fabricIndex, localNodeID: fabric.nodeID, peerNodeID: established.peerNodeID,
                peerCASEAuthenticatedTags: established.peerCASEAuthenticatedTags, peer: address,
                keys: established.keys, counter: MessageCounter(kind: .secureSession, using: &generator),
                lastActive: now)
            let message =
                "Matter: CASE \(established.isResumption ? "resumed" : "succeeded"): session"
                + " \(session.localSessionID) with node \(hex(established.peerNodeID)) on fabric"
                + " \(established.fabricIndex)"
            install(
                session, reply: established.reply.map { ($0.payload, $0.opcode.rawValue) }, on: exchange,
                saying: message, peer: peer, now: now, using: &generator)
        case .failed(let failure):
            caseHandshake = nil
            if let reply = failure.reply {
                send(reply.payload, opcode: reply.opcode.rawValue, on: reply.exchange, now: now, using: &generator)
            }
            closeExchange(exchange, now: now, using: &generator)
            log(.warning, "Matter: CASE failed: \(failure.error)", peer)
        case .drop(let reason):
            log(.debug, "Matter: a CASE message was dropped (\(reason))", peer)
            closeExchange(exchange, now: now, using: &generator)
        }
    }

    /// The running CASE handshake's time is up: it ends, nothing is sent.
    mutating func abandonCASE(now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator) {
        guard let running = caseHandshake else { return }
        caseHandshake = nil
        closeExchange(running.exchange, now: now, using: &generator)
        if let failure = caseResponder.timeOut() {
            log(
                .warning, "Matter: CASE failed: \(failure.error)",
                ["tb.matter.peer": peerName(of: running.exchange.session)])
        }
    }

    /// Acts on what the commissioning state noticed: a fabric added binds the PASE session that added
    /// it; a fabric gone takes its sessions; commissioning complete closes the window and PASE sessions.
    mutating func apply(_ notices: [CommissioningNotice], from session: SessionKey?, now: ContinuousClock.Instant) {
        guard !notices.isEmpty else { return }
        for notice in notices {
            switch notice {
            case .failSafeArmed: break
            case .fabricAdded(let index):
                // A new fabric has no records; none of a fabric once at this index may name it.
                caseResponder.forgetResumptions(ofFabric: index)
                if let key = session, var bound = sessions.secure(key), bound.kind == .pase {
                    bound.fabricIndex = index
                    sessions.update(bound)
                }
                log(.notice, "Matter: fabric \(index) added (AddNOC): announced operationally, CASE accepted")
            case .fabricUpdated(let index):
                operationalIdentityChanged(ofFabric: index, invokedOn: session)
                log(
                    .notice,
                    "Matter: fabric \(index) has a new NOC (UpdateNOC), node id"
                        + " \(dataModel.root.state.fabric(index).map { hex($0.nodeID) } ?? "?"), until"
                        + " CommissioningComplete commits it: its other sessions are closed, its resumption records"
                        + " forgotten")
            case .failSafeRolledBack(let reason, let removed, let restored):
                log(
                    .notice,
                    "Matter: the fail-safe ended (\(reason)) without CommissioningComplete: what it staged"
                        + " is undone" + (removed.map { ", fabric \($0) removed" } ?? "")
                        + (restored.map { ", fabric \($0) has its old NOC again: its sessions are closed" } ?? ""))
                for index in [removed, restored].compactMap(\.self) {
                    operationalIdentityChanged(ofFabric: index, invokedOn: session)
                }
            case .commissioningCompleted(let index):
                log(.notice, "Matter: commissioning complete on fabric \(index): the window is closed")
                for session in sessions.secure.values where session.kind == .pase { dropped(session) }
                isCommissioningWindowOpen = false
                if let running = handshake { _ = exchanges.close(running.exchange) }
                handshake = nil
            case .fabricRemoved(let index):
                log(.notice, "Matter: fabric \(index) removed")
                closeSessions(ofFabric: index, keepingUntilReplied: nil)
                caseResponder.forgetResumptions(ofFabric: index)
                // Basic Information Leave (§11.1.6.3), with the fabric that left.
                events.record(
                    endpoint: 0, cluster: ClusterID.basicInformation, event: 0x02, priority: .info,
                    data: .contextStructure([0: .unsigned(UInt64(index))]), at: now)
            case .windowOpened(let window):
                openAdministratorWindow(window)
            case .windowClosed:
                log(.notice, "Matter: the administrator's commissioning window closed")
                isCommissioningWindowOpen = false
                windowDiscriminator = nil
                if let running = handshake { _ = exchanges.close(running.exchange) }
                handshake = nil
            }
        }
        fabricsChanged()
    }

    /// CASE's fabrics and the announcement from the fabric table now.
    mutating func fabricsChanged() {
        caseResponder.configuration.fabrics = dataModel.root.state.fabrics.compactMap { fabric in
            guard let ipk = fabric.ipk else { return nil }
            return try? CASEFabric(
                fabricIndex: fabric.index, chain: fabric.chain, ipk: ipk, operationalKey: fabric.operationalKey)
        }
        announceIfChanged()
    }

    mutating func announceIfChanged() {
        let now = NodeAnnouncement(
            isCommissionable: isCommissioningWindowOpen, discriminator: windowDiscriminator,
            operational: dataModel.root.state.fabrics.map {
                OperationalIdentity(compressedFabricID: $0.compressedFabricID, nodeID: $0.nodeID)
            })
        guard now != announcement else { return }
        announcement = now
        effects.append(.announce(now))
    }

    /// PASE answered with the administrator's verifier (never the device's own passcode) while its window is open.
    private mutating func openAdministratorWindow(_ window: CommissioningWindow) {
        do {
            let configuration = try PASEResponder<ExchangeKey>.Configuration(
                verifier: try Verifier(serialized: window.verifier), salt: window.salt, iterations: window.iterations)
            pase = PASEResponder(configuration: configuration)
            handshake = nil
            isCommissioningWindowOpen = true
            windowDiscriminator = window.discriminator
            log(
                .notice,
                "Matter: fabric \(window.adminFabricIndex) opened a commissioning window (discriminator"
                    + " \(window.discriminator)): another controller may join")
        } catch {
            log(.warning, "Matter: the commissioning window's verifier is unusable (\(error)): it stays closed")
            dataModel.closeWindow()
        }
    }

    /// A secure session leaves the table: its exchanges and subscriptions go with it.
    mutating func dropped(_ session: SessionTable<Peer>.Secure) {
        sessions.removeSecure(session.localSessionID)
        exchanges.closeSession(session.key)
        interactions.sessionClosed(session.key)
    }

    /// The table was full: the least recently active session made room for a new one.
    mutating func evict(_ session: SessionTable<Peer>.Secure) {
        dropped(session)
        log(
            .notice,
            "Matter: \(limits.secureSessions) secure sessions are held: the least recently active one"
                + " (\(session.localSessionID)) made room")
    }
}
