internal import CMosquitto
import Foundation
import Synchronization

/// An MQTT connection through libmosquitto that stays up: it reconnects forever with jittered
/// backoff, re-sends its subscriptions on every connect, and keeps a Last Will on the broker.
///
/// One network thread of its own runs the loop (`MQTTClient+Loop.swift`); `onMessage` and `onEvent`
/// are called on it, in order, once each round's reads are done (never inside libmosquitto's
/// callbacks), so a message handler runs with no task or actor hop per message. `publish`
/// may be called from any thread (libmosquitto is used in threaded mode; a wake-up pipe tells the
/// network thread). `self` is passed to
/// libmosquitto as userdata; no global lookup table. Every `MOSQ_ERR_*` becomes an ``MQTTError``.
public final class MQTTClient: @unchecked Sendable {
    public typealias MessageHandler = @Sendable (consuming MQTTMessage) -> Void
    public typealias EventHandler = @Sendable (MQTTConnectionEvent) -> Void
    /// Called on the network thread once everything one round read has been handed on.
    public typealias DeliveredHandler = @Sendable () -> Void

    public let configuration: MQTTClientConfiguration
    let handle: OpaquePointer  // internal: the extensions in MQTTClient+Library.swift use it
    private let onMessage: MessageHandler
    private let onEvent: EventHandler
    private let onDelivered: DeliveredHandler
    private let state: Mutex<State>
    private let finished = DispatchSemaphore(value: 0)
    /// Messages and connection events of the current loop round's reads, handed on in order once
    /// they are done (network thread only): libmosquitto has then freed its two copies of each message
    /// (a 45 MB device list is 90 MB until the callback returns), and what the handlers publish
    /// (a restart republishes every device on `connected`) is written as it is made instead of
    /// queueing behind the callback.
    var received: [Received] = []  // internal: didReceive (MQTTClient+Library.swift) appends

    enum Received {
        case message(MQTTMessage)
        /// A large message whose payload was taken from libmosquitto (``takesLargePayloads``), not
        /// copied yet: ours to copy and free.
        case taken(MQTTMessage, UnsafeMutableRawBufferPointer)
        case event(MQTTConnectionEvent)
        /// A message already handed on: its bytes belong to the handler.
        case handedOn
    }

    /// The network thread (`pthread_self()`), and how many publications it made since it last
    /// wrote them out: a handler's effects (20 000 publications for a 10 000-device list) are
    /// written every ``flushInterval`` instead of all waiting in libmosquitto's queue.
    private let networkThread = Atomic<UInt>(0)
    private var unflushed = 0
    /// Wakes the network thread's `poll` when another thread queued a packet.
    let wakeSignal: WakeSignal
    /// Network thread only: the last round read as many packets as it may (more may be waiting), and
    /// whether this round read a large payload (hand it on before reading more).
    var readBudgetSpent = false
    var receivedLargePayload = false
    /// Network thread only: set while messages are handed on between two loop rounds. Never inside
    /// one of libmosquitto's callbacks: it holds its callback lock there, and writing a packet
    /// takes that lock again (to report the publication), which would deadlock.
    var mayWrite = false
    private static let flushInterval = 64

    private struct State {
        /// Filter → QoS and whether the broker should leave out this client's own publications.
        var subscriptions: [String: (qos: Int32, noLocal: Bool)] = [:]
        var isConnected = false
        var isStopRequested = false
        var isRunning = false
        var connectedAt: ContinuousClock.Instant?
        /// The broker acknowledged the current connection attempt (a CONNACK arrived).
        var attemptAcknowledged = false
        var backoff: ReconnectBackoff
        var kickOff = KickOffDetector()
        /// Message id → the broker's reason, for publications the broker refused (MQTT 5 PUBACK
        /// with a reason code ≥ 0x80, e.g. "Not authorized" from an ACL). Rare; kept bounded.
        var refusals: [Int32: String] = [:]
    }

    private static let libraryInitialised: Bool = {
        mosquitto_lib_init()
        return true
    }()

    /// Creates the client; nothing is sent until ``start()``.
    public init(
        configuration: MQTTClientConfiguration,
        onMessage: @escaping MessageHandler,
        onEvent: @escaping EventHandler = { _ in },
        onDelivered: @escaping DeliveredHandler = {}
    ) throws(MQTTError) {
        _ = Self.libraryInitialised
        self.configuration = configuration
        self.onMessage = onMessage
        self.onEvent = onEvent
        self.onDelivered = onDelivered
        var initial = State(backoff: configuration.backoff)
        initial.subscriptions[configuration.wakeTopic] = (qos: 0, noLocal: false)  // see ``publishWake()``
        self.state = Mutex(initial)
        self.wakeSignal = try WakeSignal()
        guard let handle = mosquitto_new(configuration.clientID, configuration.isCleanSession, nil) else {
            throw .library(
                code: Int32(MOSQ_ERR_NOMEM.rawValue),
                message: "mosquitto_new failed (out of memory or invalid client id)")
        }
        self.handle = handle
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        // Every stored property is set, so if this throws, deinit runs and destroys the handle
        // (destroying it here too was a double free).
        try configure()
    }

    deinit {
        for case .taken(_, let payload) in received { free(payload.baseAddress) }
        mosquitto_destroy(handle)
    }

    private func configure() throws(MQTTError) {
        try Self.check(mosquitto_threaded_set(handle, true))
        let version = configuration.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try Self.check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version))
        // Small packets go out at once: without this, Nagle and delayed ACKs add up to 40 ms.
        try Self.check(mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1))
        if let username = configuration.broker.username {
            try Self.check(mosquitto_username_pw_set(handle, username, configuration.broker.password))
        }
        if let will = configuration.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(
                    handle, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(clamping: will.qos),
                    will.isRetained)
            }
            try Self.check(rc)
        }
        if configuration.broker.isTLS {
            let tls = configuration.tls ?? .init()
            let caFile = tls.caFile ?? "/etc/ssl/certs/ca-certificates.crt"
            let rc = mosquitto_tls_set(handle, caFile, nil, tls.certificateFile, tls.keyFile, nil)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                let certificate = tls.certificateFile ?? "none"
                let files = "CA file \(caFile), certificate \(certificate), key \(tls.keyFile ?? "none")"
                throw .tlsConfiguration("\(Self.message(for: rc)) (\(files))")
            }
            if tls.isInsecure { try Self.check(mosquitto_tls_insecure_set(handle, true)) }
        }
        mosquitto_connect_v5_callback_set(handle) { _, userdata, rc, _, _ in
            MQTTClient.from(userdata)?.didConnect(rc)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, userdata, rc, _ in
            MQTTClient.from(userdata)?.didDisconnect(rc)
        }
        mosquitto_publish_v5_callback_set(handle) { _, userdata, mid, reasonCode, _ in
            guard reasonCode >= 0x80 else { return }
            MQTTClient.from(userdata)?.didRefuse(mid, reason: String(cString: mosquitto_reason_string(reasonCode)))
        }
        mosquitto_message_v5_callback_set(handle) { _, userdata, message, properties in
            guard let client = MQTTClient.from(userdata), let message else { return }
            client.didReceive(UnsafeMutablePointer(mutating: message), properties: properties)
        }
    }

    private static func from(_ userdata: UnsafeMutableRawPointer?) -> MQTTClient? {
        userdata.map { Unmanaged<MQTTClient>.fromOpaque($0).takeUnretainedValue() }
    }

    // MARK: Public API

    /// Whether the broker has accepted the current connection.
    public var isConnected: Bool { state.withLock { $0.isConnected } }

    /// Subscribes now when connected, and again after every reconnect.
    public func subscribe(_ filter: String, qos: Int = 0, noLocal: Bool = false) {
        let connected = state.withLock { state in
            state.subscriptions[filter] = (Int32(qos), noLocal)
            return state.isConnected
        }
        if connected {
            sendSubscribe(filter, qos: Int32(qos), noLocal: noLocal)
            publishWake()
            wakeUnlessNetworkThread()
        }
    }

    /// Publishes a message; throws ``MQTTError/notConnected`` while the broker is away (callers
    /// republish their retained state on the next ``MQTTConnectionEvent/connected(broker:)``).
    ///
    /// `responseTopic` and `correlationData` are MQTT 5 properties (a request that wants an
    /// answer, or the answer echoing its request); under MQTT 3.1.1 they are not sent.
    ///
    /// - Returns: the message id, for ``refusal(of:)``.
    @discardableResult
    public func publish(
        _ topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false,
        responseTopic: String? = nil, correlationData: [UInt8]? = nil
    ) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        let rc: Int32
        if configuration.protocolVersion == .v5 && (responseTopic != nil || correlationData != nil) {
            rc = try publishWithProperties(
                topic, payload: payload, qos: qos, retain: retain, responseTopic: responseTopic,
                correlationData: correlationData,
                mid: &mid)
        } else {
            rc = payload.withUnsafeBytes { bytes in
                mosquitto_publish(
                    handle, &mid, topic, Int32(clamping: bytes.count), bytes.baseAddress, Int32(clamping: qos), retain)
            }
        }
        if rc == MOSQ_ERR_NO_CONN.rawValue { throw .notConnected }
        if rc == MOSQ_ERR_INVAL.rawValue || rc == MOSQ_ERR_MALFORMED_UTF8.rawValue { throw .invalidTopic(topic) }
        try Self.check(rc)
        guard networkThread.load(ordering: .relaxed) == UInt(pthread_self()) else {
            wakeSignal.signal()
            return mid
        }
        if mayWrite {
            // A handler's publication, between two loop rounds: write what is queued now and then.
            unflushed += 1
            if unflushed >= Self.flushInterval {
                unflushed = 0
                _ = mosquitto_loop_write(handle, 1)  // as much as the socket takes; the loop writes the rest
            }
        }
        return mid
    }

    /// Why the broker refused the publication with this message id (MQTT 5, QoS 1 or 2), or nil:
    /// accepted, not answered yet, or under MQTT 3.1.1, where a broker drops what it refuses silently.
    public func refusal(of mid: Int32) -> String? {
        state.withLock { $0.refusals[mid] }
    }

    private func didRefuse(_ mid: Int32, reason: String) {
        state.withLock { state in
            if state.refusals.count >= 256 { state.refusals.removeAll() }
            state.refusals[mid] = reason
        }
    }

    @discardableResult
    public func publish(_ topic: String, text: String, qos: Int = 0, retain: Bool = false) throws(MQTTError) -> Int32 {
        try publish(topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    /// Starts the network thread: connect, loop, reconnect with backoff until ``stop()``.
    public func start() {
        let shouldStart = state.withLock { state in
            guard !state.isRunning else { return false }
            state.isRunning = true
            state.isStopRequested = false
            return true
        }
        guard shouldStart else { return }
        Thread { [self] in
            nameThisThread("tb-mqtt")
            runLoop()
            finished.signal()
        }.start()
    }

    /// Disconnects cleanly (no Last Will) and waits up to `timeout` for the network thread.
    public func stop(timeout: Duration = .seconds(5)) {
        let wasRunning = state.withLock { state in
            state.isStopRequested = true
            return state.isRunning
        }
        guard wasRunning else { return }
        mosquitto_disconnect(handle)
        wakeUnlessNetworkThread()
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        _ = finished.wait(timeout: .now() + seconds)
        state.withLock { $0.isRunning = false }
    }

    // MARK: Network thread

    var isStopRequested: Bool { state.withLock { $0.isStopRequested } }

    private func wakeUnlessNetworkThread() {
        if networkThread.load(ordering: .relaxed) != UInt(pthread_self()) { wakeSignal.signal() }
    }

    private func runLoop() {
        networkThread.store(UInt(pthread_self()), ordering: .relaxed)
        let broker = configuration.broker
        let keepAlive = Int32(configuration.keepAlive.components.seconds)
        var firstAttempt = true
        while !isStopRequested {
            state.withLock { $0.attemptAcknowledged = false }
            let rc =
                firstAttempt
                ? mosquitto_connect(handle, broker.host, Int32(broker.port), keepAlive)
                : mosquitto_reconnect(handle)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                let delay = state.withLock { $0.backoff.nextDelay() }
                onEvent(.connectFailed(reason: Self.message(for: rc), retryIn: delay))
                sleepInterruptibly(delay)
                continue
            }
            firstAttempt = false
            var loopResult = MOSQ_ERR_SUCCESS.rawValue
            while !isStopRequested {
                loopResult = loopRound(timeout: 100)
                if loopResult != MOSQ_ERR_SUCCESS.rawValue { break }
            }
            if isStopRequested {
                // Flush the DISCONNECT packet.
                for _ in 0..<10 where loopRound(timeout: 10) == MOSQ_ERR_SUCCESS.rawValue {}
                break
            }
            let (delay, wasAcknowledged) = state.withLock { ($0.backoff.nextDelay(), $0.attemptAcknowledged) }
            // A TLS handshake can fail after mosquitto_connect returned (non-blocking socket): the
            // attempt then ends in the loop, before any CONNACK; it is a failed connect, say so.
            if !wasAcknowledged { onEvent(.connectFailed(reason: Self.message(for: loopResult), retryIn: delay)) }
            sleepInterruptibly(delay)
        }
        state.withLock { $0.isConnected = false }
    }

    /// Hands on the messages and events of the round, in order.
    func deliverReceived() {
        receivedLargePayload = false
        guard !received.isEmpty else { return }
        var items: [Received] = []
        swap(&items, &received)
        var connected = false
        for index in items.indices {
            switch items[index] {
            case .message(let message):
                items[index] = .handedOn
                onMessage(consume message)
            case .taken(let message, let payload):
                items[index] = .handedOn
                // libmosquitto's packet is gone: two copies at most, and the handler holds the only one left.
                onMessage(message.carrying(Self.copyAndFree(payload)))
            case .event(let event):
                if case .connected = event {
                    connected = true
                    publishWake()  // after the subscriptions didConnect sent, before the handler's publications
                }
                onEvent(event)
            case .handedOn: break
            }
        }
        onDelivered()
        unflushed = 0
        if connected { writeQueued(within: .milliseconds(500)) }
    }

    private func didConnect(_ rc: Int32) {
        state.withLock { $0.attemptAcknowledged = true }  // a CONNACK arrived, accepted or not
        guard rc == 0 else {
            received.append(.event(.refused(reason: String(cString: mosquitto_connack_string(rc)))))
            return
        }
        let subscriptions = state.withLock { state in
            state.isConnected = true
            state.connectedAt = .now
            state.backoff.reset()
            return state.subscriptions
        }
        for (filter, options) in subscriptions.sorted(by: { $0.key < $1.key }) {
            sendSubscribe(filter, qos: options.qos, noLocal: options.noLocal)
        }
        received.append(.event(.connected(broker: configuration.broker.description)))
    }

    private func didDisconnect(_ rc: Int32) {
        let (expected, suspected, wasConnected) = state.withLock { state -> (Bool, Bool, Bool) in
            let duration = state.connectedAt.map { ContinuousClock.now - $0 } ?? .zero
            let wasConnected = state.isConnected
            state.isConnected = false
            state.connectedAt = nil
            let expected = state.isStopRequested
            let takenOver = configuration.protocolVersion == .v5 && rc == 0x8E
            let suspected =
                !expected && wasConnected && state.kickOff.connectionEnded(after: duration, sessionTakenOver: takenOver)
            return (expected, suspected, wasConnected)
        }
        // Never connected: the run loop reports the failed attempt (connectFailed), once.
        guard wasConnected || expected else { return }
        let reason =
            configuration.protocolVersion == .v5 && rc > MOSQ_ERR_UNKNOWN.rawValue
            ? String(cString: mosquitto_reason_string(rc)) : Self.message(for: rc)
        received.append(.event(.disconnected(reason: reason, isExpected: expected)))
        if suspected {
            received.append(
                .event(
                    .kickOffSuspected(
                        clientID: configuration.clientID,
                        detail: "the broker keeps dropping the connection right after it is made")))
        }
    }
}
