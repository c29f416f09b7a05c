import CoreMetrics
import Foundation
import FoundationEssentials
public import Logging
import Synchronization
public import TraitBridgeAutomation
import TraitBridgeCloud
import TraitBridgeJSON
public import TraitBridgeMQTT
import TraitBridgeModel
public import TraitBridgeStore

/// The running bridge: a ``BridgeState`` behind one lock, fed by the MQTT client's network thread
/// and a timer thread, with the effects performed right there (publish, store, log); those of the
/// messages one network read brought are performed together (one registry transaction).
///
/// Messages are handled synchronously on libmosquitto's thread: no task or actor hop per message,
/// one lock per message. Everything long-running stops in ``stop()``, which publishes `offline`.
public final class Bridge: Sendable {
    let state: Mutex<BridgeState>  // internal: the extensions in Bridge+*.swift take it
    private let clientBox = Mutex<MQTTClient?>(nil)
    /// The registry (also where account-linking tokens are kept).
    public let store: DeviceStore?
    let logger: Logger
    private let clientConfiguration: MQTTClientConfiguration
    let ticker = Mutex<(isRunning: Bool, lastFlush: Date)>((false, Date()))
    private let tickerDone = DispatchSemaphore(value: 0)
    /// Told of every batch of changed devices (Report State, Request Sync), inside the lock: each
    /// must only take note and return.
    let observers = Mutex<[@Sendable (_ states: [DeviceID], _ descriptions: [DeviceID]) -> Void]>([])
    /// Who sends each cloud link's EXECUTE requests (the link clients), by link name.
    let linkSenders = Mutex<[String: @Sendable (LinkRequest) -> Void]>([:])
    /// Who sends cameras' live view signalling (the HTTP edge's client).
    let signallingSender = Mutex<(@Sendable (SignallingRequest) -> Void)?>(nil)
    /// Edge connections of plug-ins that do not speak through the broker (a Matter Server), by channel.
    let channelSenders = Mutex<[String: @Sendable (Outgoing) -> Void]>([:])
    /// Effects of broker messages not performed yet (taken only inside the state lock; ``DeferredEffects``).
    /// Performed before anything else is, and once the network thread has handed on what it received.
    private let deferred = Mutex(DeferredEffects())
    private static let slicePublications = 1_024
    /// Callers in this process waiting for an answer (HTTP EXECUTE), by the number in their sink.
    let waiters = Mutex<(next: Int, pending: [Int: CheckedContinuation<[UInt8], Never>])>((0, [:]))
    /// Counters and histograms of what it does (`/metrics`).
    let metrics = BridgeMetrics()
    /// Where value and connectivity changes go (nil: no history kept).
    public let history: HistoryRecorder?

    public init(
        state: BridgeState, client: MQTTClientConfiguration, store: DeviceStore?, automationFiles: [Automation] = [],
        history: HistoryRecorder? = nil, logger: Logger
    ) {
        var clientConfiguration = client
        clientConfiguration.will = .init(topic: state.bridgeStateTopic, payload: "offline", qos: 1, isRetained: true)
        self.clientConfiguration = clientConfiguration
        self.store = store
        self.logger = logger
        self.history = history
        var initial = Self.restored(state, store: store, automationFiles: automationFiles, logger: logger)
        initial.configuration.recordsHistory = history != nil
        self.state = Mutex(initial)
        // A 10 000-device list's effects are performed as they are made, not held until its end.
        self.state.withLock {
            $0.effectsSlice = EffectsSlice(publications: Self.slicePublications) { [weak self] effects in
                self?.perform(effects)
            }
        }
    }

    /// Connects (and keeps reconnecting) and starts the timers.
    public func start() throws(MQTTError) {
        let client = try MQTTClient(
            configuration: clientConfiguration,
            onMessage: { [weak self] message in self?.handle(consume message) },
            onEvent: { [weak self] event in self?.handle(event) },
            onDelivered: { [weak self] in self?.state.withLock { _ in self?.performDeferred() } })
        let (filters, own) = state.withLock { ($0.subscriptions, $0.ownDescriptionsFilter) }
        for filter in filters { client.subscribe(filter, qos: 1) }
        // Not with MQTT 5's No Local: mosquitto 2.0.11, asked for it, stopped sending a bridge that
        // cleared 10 000 stale descriptions the retained messages of the subscriptions after it (its
        // devices never came). The bridge's own publications come back instead, live (not
        // retained), and `handleOwnDescription` ignores them as it ignores any live message there.
        client.subscribe(own, qos: 1)
        clientBox.withLock { $0 = client }
        logger.info(
            "starting",
            metadata: [
                "tb.mqtt.broker": "\(clientConfiguration.broker)", "tb.mqtt.client": "\(clientConfiguration.clientID)",
            ])
        client.start()
        ticker.withLock { $0.isRunning = true }
        let thread = Thread { [self] in
            nameThisThread("tb-timer")
            while ticker.withLock({ $0.isRunning }) {
                Thread.sleep(forTimeInterval: 0.1)
                tick()
            }
            tickerDone.signal()
        }
        thread.start()
    }

    /// Publishes `offline` (retained), disconnects cleanly and stops the timers.
    public func stop() {
        let wasRunning = ticker.withLock { ticker in
            defer { ticker.isRunning = false }
            return ticker.isRunning
        }
        if wasRunning { _ = tickerDone.wait(timeout: .now() + 2) }
        guard let client = clientBox.withLock({ $0 }) else { return }
        for outgoing in state.withLock({ $0.shutdownPublications }) {
            _ = try? client.publish(
                outgoing.topic, payload: outgoing.payload, qos: outgoing.qos, retain: outgoing.isRetained)
        }
        client.stop()
        state.withLock { perform($0.abandonWaiters(now: Date())) }
        history?.stop()
        flushLastSeen(force: true)
        logger.info("stopped")
    }

    // MARK: Events

    private func handle(_ message: consuming MQTTMessage) {
        let now = Date()
        var payload: [UInt8] = []
        swap(&payload, &message.payload)
        state.withLock { state in
            let replyTo = message.responseTopic.map {
                ReplyAddress(topic: $0, correlationData: message.correlationData)
            }
            // Handed over, not copied: a 45 MB device list is let go once its source has read it.
            var owned: [UInt8] = []
            swap(&owned, &payload)
            let started = ContinuousClock.now
            let effects = state.handleMessage(
                topic: message.topic, payload: consume owned, now: now, replyTo: replyTo,
                isRetained: message.isRetained)
            BridgeMetrics.record(metrics.handling, since: started)
            metrics.received.increment()
            let full = deferred.withLock { held in
                held.add(effects, fromRetained: message.isRetained)
                return held.isFull
            }
            if full { performDeferred() }
        }
    }

    /// Performs what ``deferred`` holds (inside the state lock).
    private func performDeferred() {
        if let pending = deferred.withLock({ $0.take() }) { performNow(pending) }
    }

    private func handle(_ event: MQTTConnectionEvent) {
        let now = Date()
        switch event {
        case .connected:
            metrics.connects.increment()
            logger.info("\(event)")
            state.withLock { perform($0.brokerConnected(now: now)) }
        case .disconnected(let reason, let isExpected):
            if !isExpected {
                metrics.disconnects.increment()
                state.withLock { perform($0.brokerDisconnected(now: now, reason: reason)) }
            }
        case .refused, .connectFailed:
            logger.warning("\(event)")
        case .kickOffSuspected:
            logger.error("\(event)")
        }
    }

    private func tick() {
        let now = Date()
        let totals = history?.totals
        state.withLock { state in
            perform(state.tick(now: now))
            if let totals { perform(state.noteHistory(totals, now: now)) }
        }
        flushLastSeen(force: false)
    }

    /// Runs inside the state lock so that publications keep their order. The registry is written
    /// first, in one transaction: whatever is on the broker about a device is on disk before it,
    /// so a `kill -9` at any point leaves nothing published that a restart would not know.
    func perform(_ effects: consuming BridgeEffects) {
        performDeferred()  // earlier messages first: publications keep their order
        performNow(effects)
    }

    private func performNow(_ effects: consuming BridgeEffects) {
        if let store, !effects.storeChanges.isEmpty {
            let batch = DeviceStore.Batch(effects.storeChanges)
            effects.storeChanges = []  // the rows share their descriptions with the publications: one owner left
            let started = ContinuousClock.now
            do {
                try store.commit(batch, at: Date())
            } catch {
                metrics.registryFailures.increment()
                logger.error("\(error)")
            }
            BridgeMetrics.record(metrics.registryWrites, since: started)
        }
        if let history,
            !effects.history.isEmpty || !effects.historyQueries.isEmpty || !effects.historyAvailability.isEmpty
        {
            history.enqueue(effects.history)
            for query in effects.historyQueries { ask(history, query) }
            for query in effects.historyAvailability { ask(history, query) }
        }
        if !effects.subscriptions.isEmpty, let client = clientBox.withLock({ $0 }) {
            for filter in effects.subscriptions { client.subscribe(filter, qos: 1) }  // kept and re-sent on reconnect
        }
        if !effects.publications.isEmpty, let client = clientBox.withLock({ $0 }) {
            var publications: [Outgoing] = []
            swap(&publications, &effects.publications)
            metrics.published.increment(by: Int64(publications.count))
            for index in publications.indices {
                let outgoing = publications[index]
                publications[index].payload = []  // each payload is freed once libmosquitto has its copy
                if let channel = outgoing.channel {
                    if let send = channelSenders.withLock({ $0[channel] }) {
                        send(outgoing)
                    } else {
                        logger.warning(
                            "\(channel) is not connected: not sent", metadata: ["tb.mqtt.topic": "\(outgoing.topic)"])
                    }
                    continue
                }
                do {
                    try client.publish(
                        outgoing.topic, payload: outgoing.payload, qos: outgoing.qos, retain: outgoing.isRetained,
                        correlationData: outgoing.correlationData)
                } catch {
                    logger.debug("not published: \(error)", metadata: ["tb.mqtt.topic": "\(outgoing.topic)"])
                }
            }
        }
        for line in effects.logs { line.log(to: logger) }
        for outcome in effects.commandOutcomes { metrics.command(outcome) }
        if !effects.changedStates.isEmpty || !effects.changedDescriptions.isEmpty {
            for observer in observers.withLock({ $0 }) { observer(effects.changedStates, effects.changedDescriptions) }
        }
        for (id, payload) in effects.answers {
            waiters.withLock { $0.pending.removeValue(forKey: id) }?.resume(returning: payload)
        }
        handOn(effects.signalling, effects.linkRequests)
    }
}
