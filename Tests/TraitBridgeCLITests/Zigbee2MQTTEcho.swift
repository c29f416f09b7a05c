import Foundation
import TraitBridgeMQTT
import TraitBridgeTesting

/// A pretend zigbee2mqtt that answers each `zigbee2mqtt/<name>/set` it receives by publishing the
/// same payload as `zigbee2mqtt/<name>`, as a real one does once the device took the command:
/// commands are then confirmed at once. `once`: only the first. Bounded in time; `stop()` ends it.
final class Zigbee2MQTTEcho: Sendable {
    let client: TestMQTTClient
    private let stopped = Recorder<Bool>()

    init(_ broker: MosquittoBroker, device: String = "+", once: Bool = false, for duration: Duration = .seconds(600))
        throws
    {
        let client = try TestMQTTClient(broker, subscribe: ["zigbee2mqtt/\(device)/set"])
        self.client = client
        let stopped = stopped
        Thread {
            var answered = 0
            let deadline = ContinuousClock.now + duration
            while stopped.all.isEmpty, ContinuousClock.now < deadline, !(once && answered > 0) {
                let messages = client.messages.all
                for message in messages.dropFirst(answered) where !(once && answered > 0) {
                    try? client.publish(String(message.topic.dropLast("/set".count)), message.payloadText)
                    answered += 1
                }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }.start()
    }

    /// The commands it received, in order.
    var received: [MQTTMessage] { client.messages.all }

    func stop() { stopped.append(true) }

    deinit { stop() }
}
