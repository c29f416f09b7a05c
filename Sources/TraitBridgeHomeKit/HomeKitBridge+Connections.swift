import Crypto
import Foundation
import Logging
import NIOCore
import Synchronization
import TraitBridgeEngine

/// One controller connection: plain HTTP until pair-verify succeeds, then every byte both ways in
/// the session's frames. A request that breaks the protocol (a forged frame, a malformed request,
/// too many bytes) closes the connection, never more.
extension HomeKitBridge {
    /// What the request loop keeps of one connection (the sending half is the `HAPConnection`).
    struct ConnectionState {
        var receiver: SessionCipher?
        var reader = HAPRequestReader()
        var verify = PairVerify()
    }

    func serve(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        do {
            try await channel.executeThenClose { inbound, outbound in
                let (admitted, evicted) = admit(outbound: outbound, channel: channel.channel)
                if let evicted { await evicted.close() }
                guard let connection = admitted else {
                    logger.warning(
                        "HomeKit: \(settings.connectionLimit) verified connections are open: one more was closed")
                    return
                }
                defer {
                    shared.withLock { shared in
                        shared.connections[connection.id] = nil
                        shared.verified.remove(connection.id)
                        shared.pairing.connectionClosed(connection.id)
                    }
                }
                // A connection that has not verified a controller within the time is closed: unpaired
                // connections cannot hold the places of controllers.
                let deadline = Task {
                    try await Task.sleep(for: Self.verifyDeadline)
                    if await connection.controller == nil { await connection.close() }
                }
                defer { deadline.cancel() }
                var state = ConnectionState()
                for try await buffer in inbound {
                    guard await received(Array(buffer.readableBytesView), state: &state, connection: connection) else {
                        break
                    }
                }
            }
        } catch {
            logger.debug("HomeKit: a connection ended: \(error)")
        }
    }

    /// How long a connection may stay without a verified controller.
    static let verifyDeadline = Duration.seconds(30)

    /// Admits a connection; at the limit, the oldest one without a verified controller makes room
    /// (it is returned to be closed); when every one is verified, the new one is refused.
    private func admit(
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, channel: any Channel
    ) -> (HAPConnection?, evicted: HAPConnection?) {
        shared.withLock { shared in
            var evicted: HAPConnection?
            if shared.connections.count >= settings.connectionLimit {
                guard let oldest = shared.connections.keys.filter({ !shared.verified.contains($0) }).min() else {
                    return (nil, nil)
                }
                evicted = shared.connections.removeValue(forKey: oldest)
            }
            let connection = HAPConnection(id: shared.nextConnection, outbound: outbound, channel: channel)
            shared.connections[shared.nextConnection] = connection
            shared.nextConnection += 1
            return (connection, evicted)
        }
    }

    /// Handles bytes from the controller; false when the connection must close.
    private func received(_ bytes: [UInt8], state: inout ConnectionState, connection: HAPConnection) async -> Bool {
        var plain = bytes
        if state.receiver != nil {
            do { plain = try state.receiver!.open(bytes) } catch {
                logger.warning(
                    "HomeKit: connection \(connection.id) sent a frame that does not open (\(error)): closed")
                return false
            }
        }
        state.reader.append(plain)
        while true {
            let request: HAPRequest?
            do { request = try state.reader.next() } catch {
                logger.warning("HomeKit: connection \(connection.id): \(error): closed")
                await connection.send(HAPResponse.http(400))
                return false
            }
            guard let request else { return true }
            let reply = await respond(to: request, state: &state, connection: connection)
            guard await connection.send(reply.bytes) else { return false }
            for id in reply.closeControllers { closeConnections(of: id) }
            if let secured = reply.secured {
                state.receiver = secured.cipher
                await connection.secure(secured.cipher, controller: secured.controller)
                _ = shared.withLock { $0.verified.insert(connection.id) }
                // What the controller sent after M3 is frames of the session: never read as plaintext.
                let rest = state.reader.takeRest()
                return rest.isEmpty ? true : await received(rest, state: &state, connection: connection)
            }
        }
    }

    struct Reply {
        var bytes: [UInt8]
        var secured: (controller: String, cipher: SessionCipher)?
        var closeControllers: [String] = []
    }

    private func respond(to request: HAPRequest, state: inout ConnectionState, connection: HAPConnection) async -> Reply
    {
        let tlvType = "application/pairing+tlv8"
        switch (request.method, request.path) {
        case ("POST", "/pair-setup"):
            guard let tlv = try? TLV8(decoding: request.body) else { return Reply(bytes: HAPResponse.http(400)) }
            let answer = shared.withLock { shared in
                shared.pairing.pairSetup(tlv, connection: connection.id, now: Date()) {
                    PairingState.SetupRandom(salt: Self.randomBytes(16), privateValue: Self.randomBytes(32))
                }
            }
            if answer.changed { persist(identity) }
            if let added = answer.addedController {
                logger.notice("HomeKit: paired with controller \(added) (admin)")
                wakeAnnouncement()
            }
            if answer.tlv.byte(.error) == TLV8.PairingError.authentication.rawValue {
                logger.warning(
                    "HomeKit: a pair-setup with a wrong setup code was refused (connection \(connection.id))")
            }
            return Reply(bytes: HAPResponse.http(200, contentType: tlvType, body: answer.tlv.encoded))
        case ("POST", "/pair-verify"):
            guard let tlv = try? TLV8(decoding: request.body) else { return Reply(bytes: HAPResponse.http(400)) }
            let (pairingID, secretKey) = shared.withLock {
                ($0.pairing.identity.pairingID, $0.pairing.identity.longTermSecretKey)
            }
            let answer = state.verify.handle(
                tlv, pairingID: pairingID, longTermSecretKey: secretKey,
                ephemeral: Curve25519.KeyAgreement.PrivateKey(),
                controllerKey: { id in self.shared.withLock { $0.pairing.publicKey(of: id) } })
            let bytes = HAPResponse.http(200, contentType: tlvType, body: answer.tlv.encoded)
            return Reply(bytes: bytes, secured: answer.session)
        case ("POST", "/identify"):
            guard !identity.isPaired else {
                return Reply(
                    bytes: HAPResponse.http(
                        400, contentType: "application/hap+json",
                        body: HAPDocuments.statusBody(HAPStatus.insufficientPrivileges.rawValue)))
            }
            logger.notice("HomeKit: identify asked while unpaired")
            return Reply(bytes: HAPResponse.http(204))
        default:
            guard let controller = await connection.controller else {
                return Reply(
                    bytes: HAPResponse.http(
                        470, contentType: "application/hap+json",
                        body: HAPDocuments.statusBody(HAPStatus.insufficientPrivileges.rawValue)))
            }
            return await respondVerified(to: request, controller: controller, connection: connection)
        }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Ends every connection of a controller whose pairing was removed.
    func closeConnections(of controller: String) {
        let connections = shared.withLock { Array($0.connections.values) }
        for connection in connections {
            Task {
                if await connection.controller == controller { await connection.close() }
            }
        }
    }

    /// The TXT record's `sf` changes when the first controller pairs: re-announce.
    func wakeAnnouncement() {
        shared.withLock { $0.descriptionsChanged = true }
        wakeContinuation.yield()
    }
}
