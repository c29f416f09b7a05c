import Foundation
public import Logging
import NIOCore
import NIOPosix
public import ServiceLifecycle
import Synchronization
import TraitBridgeDNSSD
public import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials
public import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

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
        /// The interfaces whose IPv4 addresses DNS-SD announces (through Avahi); nil: not announced.
        public var mdnsInterfaces: [String]?
        /// Added to avahi-publish's environment (tests: the sandbox's `DBUS_SYSTEM_BUS_ADDRESS`).
        public var mdnsEnvironment: [String: String] = [:]
        /// Where the node's timer task runs; nil: Swift's global executor. The timer is an unstructured
        /// task, which does not follow a caller's task executor preference: tests whose serving runs on
        /// a dedicated executor (off a starved cooperative pool) give it one too.
        public var timerExecutor: (any TaskExecutor)?

        public init(host: String = "127.0.0.1", port: Int = 5540, mdnsInterfaces: [String]? = nil) {
            self.host = host
            self.port = port
            self.mdnsInterfaces = mdnsInterfaces
        }
    }

    /// Datagrams read and not yet handled; more are dropped (and the drop logged) until the node catches up.
    static let queueLimit = 256

    typealias Datagrams = NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>

    enum Input: Sendable {
        case datagram(AddressedEnvelope<ByteBuffer>)
        case tick
        /// A light switched on the device side (the unified device it stands for changed).
        case setOnOff(endpoint: UInt16, isOn: Bool)
        /// The bridge's endpoints changed, came or went, or a device answered a command (taken from
        /// `pendingEndpoints` and `pendingAnswers` at every input: this one may be dropped with a full
        /// queue, what it announces never is).
        case endpointsChanged
        /// Graceful shutdown: ShutDown to the subscribers, then the socket closes.
        case shutDown
    }

    /// Told when a controller switched a light: its endpoint and the state it asked for.
    public typealias OnOffObserver = @Sendable (_ endpoint: UInt16, _ isOn: Bool) -> Void
    /// Told of each controller's command or write an endpoint accepted for its device to carry out.
    public typealias RequestObserver = @Sendable (EndpointRequest) -> Void

    let setup: MatterSetup
    let settings: Settings
    let information: DeviceInformation
    /// The DAC, PAI, CD and DAC key the root endpoint answers attestation with.
    public let attestation: DeviceAttestation
    let endpoints: [any ApplicationEndpoint]
    let logger: Logger
    private let boundPort = Mutex<Int?>(nil)
    let advertiser: AvahiAdvertiser
    let onOffCommanded: OnOffObserver?
    let forwarded: RequestObserver?
    /// Told of what a restart must find again (``NodeSnapshot``) after a batch of the node's effects in
    /// which it changed: a fabric committed, relabelled or removed, a CASE resumption record saved, moved
    /// or forgotten, NodeLabel or Location written.
    public typealias SnapshotObserver = @Sendable (NodeSnapshot) -> Void
    /// What a restart finds again (fabrics, resumption records, labels); nil for a fresh node.
    let restoring: NodeSnapshot?
    let persist: SnapshotObserver?
    /// The serving loop's input while it runs: device-side changes go in there.
    private let inputs = Mutex<AsyncStream<Input>.Continuation?>(nil)
    /// Device-side states asked for while nothing serves, given when serving starts (taken under `inputs`).
    private let pendingOnOff = Mutex<[UInt16: Bool]>([:])
    /// The devices' answers to deferred commands (by token) not yet given to the node.
    private let pendingAnswers = Mutex<[UInt64: StatusCode]>([:])
    /// Endpoints replaced (or removed: nil) and not yet given to the node, the last of each.
    private let pendingEndpoints = Mutex<[UInt16: (any ApplicationEndpoint)?]>([:])
    /// The commissionable instance name's 64 bits, drawn again for each window.
    private let commissioningInstance = Mutex<UInt64>(UInt64.random(in: 1 ... .max))

    /// A device with `setup`'s identity serving `endpoints` beside its root (whose Basic Information is
    /// `information`, whose attestation is `attestation`: VendorID and ProductID must be the DAC's); its
    /// onboarding payload names `information`'s vendor and product.
    /// `restoring`: what it kept (its fabrics, resumption records and labels, these in place of
    /// `information`'s); its commissioning window is open only without a fabric. `persist` is told each
    /// time that changes.
    public init(
        setup: MatterSetup, settings: Settings = Settings(), information: DeviceInformation = DeviceInformation(),
        attestation: DeviceAttestation = .sdkTestCredentials, endpoints: [any ApplicationEndpoint] = [],
        onOffCommanded: OnOffObserver? = nil, forwarded: RequestObserver? = nil, restoring: NodeSnapshot? = nil,
        persist: SnapshotObserver? = nil, logger: Logger
    ) {
        self.attestation = attestation
        self.onOffCommanded = onOffCommanded
        self.forwarded = forwarded
        self.restoring = restoring
        self.persist = persist
        // The codes logged at start name the vendor and product the device attests as (Basic Information's,
        // the DAC's), not whatever `setup` was made with: a QR code of the test ids would misname a product.
        self.setup = setup.naming(vendorID: information.vendorID, productID: information.productID)
        self.settings = settings
        self.information = information
        self.endpoints = endpoints
        self.logger = logger
        advertiser = AvahiAdvertiser(
            label: "Matter", setting: "matterBridge.mdns", logger: logger, environment: settings.mdnsEnvironment)
    }

    /// The port the socket is bound to, once ``run()`` has bound it.
    public var port: Int? { boundPort.withLock { $0 } }

    /// Switches the On/Off Light on `endpoint` from the device side: subscribed controllers hear of it.
    /// Before ``run()`` serves (or after it ended), the last state asked for is kept and given when it serves.
    public func setOnOff(endpoint: UInt16, isOn: Bool) {
        inputs.withLock { continuation in
            if let continuation {
                continuation.yield(.setOnOff(endpoint: endpoint, isOn: isOn))
            } else {
                pendingOnOff.withLock { $0[endpoint] = isOn }
            }
        }
    }

    /// Gives the node the bridge's new descriptions of `changed` endpoints and drops `removed` ones;
    /// subscribed controllers hear of it. Before ``run()`` serves, the last of each is kept and given
    /// when it serves.
    public func replace(_ changed: [any ApplicationEndpoint], removing removed: Set<UInt16> = []) {
        guard !changed.isEmpty || !removed.isEmpty else { return }
        pendingEndpoints.withLock { pending in
            for id in removed { pending[id] = .some(nil) }
            for endpoint in changed { pending[endpoint.id] = endpoint }
        }
        inputs.withLock { _ = $0?.yield(.endpointsChanged) }
    }

    /// The device's answer to the command handed on with `token` (``EndpointRequest/token``): the
    /// controller's InvokeResponse carries `status`. Too late (the node answered SUCCESS at its
    /// deadline) it is dropped.
    public func complete(_ token: UInt64, status: StatusCode) {
        pendingAnswers.withLock { $0[token] = status }
        inputs.withLock { _ = $0?.yield(.endpointsChanged) }
    }

    /// The endpoints changed since the last call, for the node.
    private func takePendingEndpoints() -> (changed: [any ApplicationEndpoint], removed: Set<UInt16>)? {
        let pending = pendingEndpoints.withLock { pending in
            defer { pending = [:] }
            return pending
        }
        guard !pending.isEmpty else { return nil }
        return (pending.values.compactMap { $0 }, Set(pending.filter { $0.value == nil }.keys))
    }

    /// Serves until graceful shutdown (or cancellation).
    public func run() async throws {
        var random = SystemRandomNumberGenerator()
        var state = CommissioningState()
        if let restoring { state = try CommissioningState(restoring: restoring.commissioning) }
        let fabricCount = state.fabrics.count
        let information = restoring?.applied(to: information) ?? information
        let dataModel = NodeDataModel(
            root: RootEndpoint(information: information, attestation: attestation, state: state), endpoints: endpoints,
            using: &random)
        // Certificates are checked against the time the device started: the last time known good.
        let started = MatterTime(unixSeconds: UInt64(exactly: Date().timeIntervalSince1970.rounded(.down)) ?? 0)
        var node = MatterNode<SocketAddress>(
            commissioning: try setup.commissioning(), limits: settings.limits,
            isCommissioningWindowOpen: fabricCount == 0, dataModel: dataModel,
            validityPolicy: .lastKnownGoodTime(started ?? MatterTime(secondsSince2000: 0)),
            // Event numbers rise across restarts without a counter on disk: milliseconds since 1970 at start
            // (above any number an earlier run reached unless it recorded over 1 000 events a second).
            firstEventNumber: UInt64(exactly: (Date().timeIntervalSince1970 * 1000).rounded(.down)) ?? 0,
            using: &random)
        node.restoreResumptions(restoring?.resumptions ?? [])
        let resumable = node.resumptionRecords.count
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: settings.host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture { try Datagrams(wrappingChannelSynchronously: channel) }
            }
        let port = channel.channel.localAddress?.port ?? settings.port
        boundPort.withLock { $0 = port }
        let codes =
            "manual pairing code \(setup.manualPairingCode), QR \(setup.qrCode)"
            + (fabricCount == 0 ? "" : "; commissioned on \(fabricCount) fabric(s): the window is closed")
            + (resumable == 0 ? "" : "; \(resumable) CASE session(s) resumable")
        logger.info(
            "Matter: device listening on \(settings.host):\(port) — \(codes)",
            metadata: ["tb.matter.address": "\(settings.host)", "tb.matter.port": "\(port)"])
        announce(node.announcement)
        defer { advertiser.stop() }
        try await withGracefulShutdownHandler {
            try await channel.executeThenClose { inbound, outbound in
                try await serve(&node, inbound: inbound, outbound: outbound) { channel.channel.close(promise: nil) }
            }
        } onGracefulShutdown: {
            // The serving loop sends ShutDown and closes; without it (not serving yet, or its queue full), close now.
            let queued = self.inputs.withLock { $0?.yield(.shutDown) }
            guard case .enqueued = queued else { return channel.channel.close(promise: nil) }
        }
        logger.info("Matter: device on port \(port) stopped")
    }

    /// One reader task queues datagrams; this task alone owns the node, handles them and the ticks,
    /// and writes. A tick comes from a sleeping task re-armed whenever the node's deadline changes.
    private func serve(
        _ node: inout MatterNode<SocketAddress>, inbound: NIOAsyncChannelInboundStream<AddressedEnvelope<ByteBuffer>>,
        outbound: NIOAsyncChannelOutboundWriter<AddressedEnvelope<ByteBuffer>>, close: @escaping @Sendable () -> Void
    ) async throws {
        let (inputs, continuation) = AsyncStream.makeStream(
            of: Input.self, bufferingPolicy: .bufferingOldest(Self.queueLimit))
        self.inputs.withLock { input in
            input = continuation
            let pending = pendingOnOff.withLock { pending in
                defer { pending = [:] }
                return pending
            }
            for (endpoint, isOn) in pending.sorted(by: { $0.key < $1.key }) {
                continuation.yield(.setOnOff(endpoint: endpoint, isOn: isOn))
            }
            continuation.yield(.endpointsChanged)
        }
        defer { self.inputs.withLock { $0 = nil } }
        var persisted = node.snapshot
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
                var effects: [MatterNode<SocketAddress>.Effect] = []
                if let (changed, removed) = takePendingEndpoints() {
                    effects = node.replace(changed, removing: removed, now: .now)
                }
                let answers = pendingAnswers.withLock { answers in
                    defer { answers = [:] }
                    return answers
                }
                for (token, status) in answers.sorted(by: { $0.key < $1.key }) {
                    effects += node.completeInvoke(token, status: status, now: .now)
                }
                switch input {
                case .datagram(let envelope):
                    let bytes = Array(envelope.data.readableBytesView)
                    let event = MatterNode.Event.datagram(bytes, from: envelope.remoteAddress, now: .now)
                    effects += node.handle(event, using: &random)
                case .tick:
                    effects += node.handle(.tick(now: .now), using: &random)
                case .setOnOff(let endpoint, let isOn):
                    effects += node.update(endpoint: endpoint, as: OnOffLight.self, now: .now) { $0.set(isOn: isOn) }
                case .endpointsChanged: break
                case .shutDown:
                    await write(node.shutDown(now: .now, using: &random), to: outbound, node: node)
                    close()
                    continue
                }
                await write(effects, to: outbound, node: node)
                if let persist {
                    let snapshot = node.snapshot
                    if snapshot != persisted {
                        persisted = snapshot
                        persist(snapshot)
                    }
                }
                if node.nextDeadline != armed {
                    timer?.cancel()
                    armed = node.nextDeadline
                    let executor = settings.timerExecutor
                    timer = armed.map { deadline in
                        Task(executorPreference: executor) {
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
        to outbound: NIOAsyncChannelOutboundWriter<AddressedEnvelope<ByteBuffer>>, node: MatterNode<SocketAddress>
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
                    "Matter: session \(session.localSessionID) with \(session.peer) is ready",
                    metadata: ["tb.matter.session": "\(session.localSessionID)", "tb.matter.peer": "\(session.peer)"])
            case .announce(let announcement):
                announce(announcement)
            case .attributesChanged(let paths):
                logger.info("Matter: a controller changed \(paths.map(\.description).joined(separator: ", "))")
                for endpoint in Set(paths.filter { $0.cluster == OnOffLight.onOff }.map(\.endpoint)) {
                    if let light = node.dataModel.endpoints.first(where: { $0.id == endpoint }) as? OnOffLight {
                        onOffCommanded?(endpoint, light.isOn)
                    }
                }
            case .forwarded(let request):
                forwarded?(request)
            }
        }
    }

}

extension MatterDeviceServer {
    /// Announces the node by DNS-SD as it now is: commissionable while its window is open (a new
    /// instance name each time a window opens), operational on each fabric.
    func announce(_ announcement: NodeAnnouncement) {
        guard let interfaces = settings.mdnsInterfaces, let port else { return }
        let instance = commissioningInstance.withLock { instance in
            if !announcement.isCommissionable { instance = UInt64.random(in: 1 ... .max) }
            return instance
        }
        let advertisement = MatterAdvertisement(
            discriminator: announcement.discriminator ?? setup.payload.discriminator, vendorID: information.vendorID,
            productID: information.productID,
            deviceType: endpoints.first?.deviceTypes.first?.deviceType ?? 0x0016, deviceName: information.productName,
            port: port, commissioningInstance: announcement.isCommissionable ? instance : nil,
            fabrics: announcement.operational.map {
                MatterAdvertisement.Fabric(compressedFabricID: $0.compressedFabricID, nodeID: $0.nodeID)
            }, mrp: .defaults)
        let host = "traitbridge-matter-\(String(setup.payload.discriminator, radix: 16)).local"
        advertiser.publish(advertisement.services, host: host, interfaces: interfaces)
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
