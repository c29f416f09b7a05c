public import TraitBridgeMQTT
import Foundation
import Synchronization
import TraitBridgeJSON

/// Simulated devices on a real broker: ``SimulatorCore`` plus a connection and a clock.
///
/// `start()` connects and publishes the home; a thread of its own then answers commands,
/// drifts sensor values and injects the scenario's faults on time, until `stop()`.
public final class Simulator: Sendable {
    /// A line for the user: what was injected, what was answered.
    public typealias EventHandler = @Sendable (String) -> Void

    private let client: MQTTClient
    private let core: Mutex<SimulatorCore>
    private let inbox = Inbox()
    private let control = Mutex(Control())
    private let onEvent: EventHandler

    private struct Control {
        var isStopping = false
        var isFinished = false
        var pendingSteps = 0
    }

    public init(scenario: Scenario, broker: BrokerURL, onEvent: @escaping EventHandler = { _ in }) throws(MQTTError) {
        let inbox = self.inbox
        self.core = Mutex(SimulatorCore(scenario: scenario))
        self.onEvent = onEvent
        let will = scenario.zigbee2mqttDevices == nil ? nil
            : MQTTClientConfiguration.Will(topic: "\(scenario.zigbee2mqttBaseTopic)/bridge/state", payload: #"{"state":"offline"}"#)
        client = try MQTTClient(
            configuration: MQTTClientConfiguration(broker: broker, clientID: MQTTClientConfiguration.uniqueClientID(prefix: "traitbridge-sim"), will: will),
            onMessage: { message in inbox.messages.withLock { $0.append(message) } })
    }

    /// Faults not injected yet (a flap counts each step).
    public var pendingFaults: Int { control.withLock { $0.pendingSteps } }

    /// Connects (within `timeout`), publishes the home, and starts answering on a thread of its own.
    public func start(timeout: Duration = .seconds(10)) throws(SimulatorError) {
        let (subscriptions, timeline) = core.withLock { ($0.subscriptions, $0.timeline) }
        for filter in subscriptions { client.subscribe(filter, qos: 1) }
        client.start()
        let deadline = ContinuousClock.now + timeout
        while !client.isConnected {
            guard ContinuousClock.now < deadline else {
                client.stop()
                throw .brokerUnreachable(client.configuration.broker.description)
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        Thread.sleep(forTimeInterval: 0.05)  // let the subscriptions settle before the first command can come
        publish(core.withLock { $0.startMessages() })
        control.withLock { $0.pendingSteps = timeline.count }
        Thread { [self] in
            nameThisThread("tb-simulator")
            loop(timeline: timeline)
        }.start()
    }

    /// Stops answering and disconnects (retained messages stay, as a real home's would).
    public func stop() {
        control.withLock { $0.isStopping = true }
        let deadline = ContinuousClock.now + .seconds(5)
        while !control.withLock({ $0.isFinished }) && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        client.stop()
    }

    private func loop(timeline: [(afterSeconds: Double, kind: Scenario.Fault.Kind, device: String?)]) {
        let start = ContinuousClock.now
        let driftInterval = core.withLock { $0.scenario.driftIntervalSeconds }
        var nextDrift = start + .milliseconds(Int(driftInterval * 1000))
        var nextStep = 0
        while !control.withLock({ $0.isStopping }) {
            let messages = inbox.messages.withLock { queue in
                let taken = queue
                queue.removeAll()
                return taken
            }
            for message in messages {
                publish(core.withLock { $0.handle(topic: message.topic, payload: message.payload) })
            }
            let elapsed = ContinuousClock.now - start
            while nextStep < timeline.count, elapsed >= .milliseconds(Int(timeline[nextStep].afterSeconds * 1000)) {
                let step = timeline[nextStep]
                publish(core.withLock { $0.inject(step.kind, device: step.device) })
                onEvent("fault: \(step.kind.rawValue)\(step.device.map { " \($0)" } ?? "")")
                nextStep += 1
                control.withLock { $0.pendingSteps = timeline.count - nextStep }
            }
            if ContinuousClock.now >= nextDrift {
                publish(core.withLock { $0.drift() })
                nextDrift = ContinuousClock.now + .milliseconds(Int(driftInterval * 1000))
            }
            if messages.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
        }
        control.withLock { $0.isFinished = true }
    }

    private func publish(_ messages: [SimulatorCore.Message]) {
        for message in messages {
            do {
                try client.publish(message.topic, payload: message.payload, qos: 1, retain: message.retain)
            } catch {
                onEvent("could not publish \(message.topic): \(error)")
            }
        }
    }
}

/// Commands that arrived, waiting for the simulator's thread.
private final class Inbox: Sendable {
    let messages = Mutex<[MQTTMessage]>([])
}

/// Why the simulator could not run.
public enum SimulatorError: Error, CustomStringConvertible {
    case brokerUnreachable(String)

    public var description: String {
        switch self {
        case .brokerUnreachable(let broker): "cannot reach the broker \(broker); is it running? (traitbridge demo starts a private one)"
        }
    }
}
