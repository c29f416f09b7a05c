public import Logging
import NIOCore
import NIOPosix
public import ServiceLifecycle
import Synchronization

/// TraitBridge's Matter device on the network: a UDP socket (Matter's port 5540 by default) whose
/// datagrams and timer ticks drive one ``MatterNode``, and whose effects it writes. It exists as
/// the node's only edge: one task owns the node (no lock on the per-message path), and a graceful
/// shutdown closes the socket, ends that task and finishes the writer, so nothing traps
/// (swift-nio#2637: a wrapped channel whose writer is released unfinished traps).
public final class MatterDeviceServer: Service, Sendable {
    /// Where to listen.
    public struct Settings: Sendable {
        /// The address to bind: loopback, or the one interface commissioners reach.
        public var host = "127.0.0.1"
        /// Matter's UDP port (Core §4.4.4, 5540); 0 for any free one (tests: read ``port``).
        public var port = 5540
        public var limits = NodeLimits()
        public init(host: String = "127.0.0.1", port: Int = 5540) {
            self.host = host
            self.port = port
        }
    }

    /// Datagrams read and not yet handled; more are dropped (and the drop logged) until the node catches up.
    static let queueLimit = 256

    typealias Datagrams = NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>

    enum Input: Sendable {
        case datagram(AddressedEnvelope<ByteBuffer>)
        case tick
    }

    let setup: MatterSetup
    let settings: Settings
    let logger: Logger
    private let boundPort = Mutex<Int?>(nil)

    public init(setup: MatterSetup, settings: Settings = Settings(), logger: Logger) {
        self.setup = setup
        self.settings = settings
        self.logger = logger
    }

    /// The port the socket is bound to, once ``run()`` has bound it.
    public var port: Int? { boundPort.withLock { $0 } }

    /// Serves until graceful shutdown (or cancellation).
    public func run() async throws {
        var random = SystemRandomNumberGenerator()
        var node = MatterNode<SocketAddress>(
            commissioning: try setup.commissioning(), limits: settings.limits, using: &random)
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: settings.host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture { try Datagrams(wrappingChannelSynchronously: channel) }
            }
        let port = channel.channel.localAddress?.port ?? settings.port
        boundPort.withLock { $0 = port }
        let codes = "manual pairing code \(setup.manualPairingCode), QR \(setup.qrCode)"
        logger.info(
            "Matter: device listening on \(settings.host):\(port) — \(codes)",
            metadata: ["tb.matter.address": "\(settings.host)", "tb.matter.port": "\(port)"])
        try await withGracefulShutdownHandler {
            try await channel.executeThenClose { inbound, outbound in
                try await serve(&node, inbound: inbound, outbound: outbound)
            }
        } onGracefulShutdown: {
            channel.channel.close(promise: nil)
        }
        logger.info("Matter: device on port \(port) stopped")
    }

    /// One reader task queues datagrams; this task alone owns the node, handles them and the ticks,
    /// and writes. A tick comes from a sleeping task re-armed whenever the node's deadline changes.
    private func serve(
        _ node: inout MatterNode<SocketAddress>, inbound: NIOAsyncChannelInboundStream<AddressedEnvelope<ByteBuffer>>,
        outbound: NIOAsyncChannelOutboundWriter<AddressedEnvelope<ByteBuffer>>
    ) async throws {
        let (inputs, continuation) = AsyncStream.makeStream(
            of: Input.self, bufferingPolicy: .bufferingOldest(Self.queueLimit))
        let logger = logger
        var random = SystemRandomNumberGenerator()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { continuation.finish() }
                var isDropping = false
                for try await envelope in inbound {
                    if case .dropped = continuation.yield(.datagram(envelope)) {
                        if !isDropping {
                            logger.warning("Matter: \(Self.queueLimit) datagrams wait to be handled: more are dropped")
                        }
                        isDropping = true
                    } else {
                        isDropping = false
                    }
                }
            }
            var timer: Task<Void, Never>?
            var armed: ContinuousClock.Instant?
            defer { timer?.cancel() }
            for await input in inputs {
                let effects: [MatterNode<SocketAddress>.Effect]
                switch input {
                case .datagram(let envelope):
                    let bytes = Array(envelope.data.readableBytesView)
                    let event = MatterNode.Event.datagram(bytes, from: envelope.remoteAddress, now: .now)
                    effects = node.handle(event, using: &random)
                case .tick:
                    effects = node.handle(.tick(now: .now), using: &random)
                }
                await write(effects, to: outbound)
                if node.nextDeadline != armed {
                    timer?.cancel()
                    armed = node.nextDeadline
                    timer = armed.map { deadline in
                        Task {
                            do { try await Task.sleep(until: deadline) } catch { return }  // re-armed or stopped
                            continuation.yield(.tick)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    private func write(
        _ effects: [MatterNode<SocketAddress>.Effect],
        to outbound: NIOAsyncChannelOutboundWriter<AddressedEnvelope<ByteBuffer>>
    ) async {
        for effect in effects {
            switch effect {
            case .send(let bytes, let peer):
                do {
                    try await outbound.write(AddressedEnvelope(remoteAddress: peer, data: ByteBuffer(bytes: bytes)))
                } catch {
                    logger.debug("Matter: a datagram to \(peer) was not sent: \(error)")
                }
            case .log(let line):
                logger.log(
                    level: line.level.logLevel, "\(line.message)", metadata: line.metadata.mapValues { .string($0) })
            case .sessionEstablished(let session):
                // The node's own line said PASE succeeded; this one is for whoever follows sessions.
                logger.debug(
                    "Matter: PASE session \(session.localSessionID) with \(session.peer) is ready",
                    metadata: ["tb.matter.session": "\(session.localSessionID)", "tb.matter.peer": "\(session.peer)"])
            }
        }
    }

}

extension NodeLogLine.Level {
    var logLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        }
    }
}
