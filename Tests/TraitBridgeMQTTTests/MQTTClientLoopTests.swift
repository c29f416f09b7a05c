import Foundation
import Testing
@testable import TraitBridgeMQTT
import TraitBridgeTesting

/// The network thread's round (poll, read until the socket is empty, hand on, write), against a
/// real mosquitto: bursts larger than one round's read budget, answers written from the handler,
/// and the wake-up another thread's publication sends.
@Suite("MQTT client loop against a real mosquitto", .serialized)
struct MQTTClientLoopTests {
    func client(
        _ broker: MosquittoBroker, _ name: String, onMessage: @escaping MQTTClient.MessageHandler = { _ in }
    ) throws -> MQTTClient {
        let configuration = MQTTClientConfiguration(
            broker: try BrokerURL(broker.url), clientID: name,
            backoff: ReconnectBackoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(400)))
        return try MQTTClient(configuration: configuration, onMessage: onMessage)
    }

    @Test("a burst of several read budgets' worth arrives whole and in order; the handler's answers all go out")
    func burst() throws {
        let broker = try MosquittoBroker()
        let count = MQTTClient.readBudget * 4 + 7
        let answers = Recorder<MQTTMessage>()
        let observer = try client(broker, "observer") { answers.append($0) }
        observer.subscribe("tb-loop/answer/#", qos: 1)
        let arrived = Recorder<MQTTMessage>()
        // The echo's handler runs on its network thread and publishes from there: written by the round.
        let echo = Box<MQTTClient?>(nil)
        echo.value = try client(broker, "echo") { message in
            arrived.append(message)
            let answer = "tb-loop/answer/" + message.topic.dropFirst(8)
            _ = try? echo.value?.publish(answer, payload: message.payload, qos: 1)
        }
        guard let echoClient = echo.value else { return }
        echoClient.subscribe("tb-loop/in/#", qos: 1)
        let sender = try client(broker, "sender")
        for started in [observer, echoClient, sender] { started.start() }
        defer {
            for started in [sender, echoClient, observer] { started.stop() }
            echo.value = nil  // the echo's handler holds the box that holds the echo: break the cycle
        }
        #expect(eventually { observer.isConnected && echoClient.isConnected && sender.isConnected })
        Thread.sleep(forTimeInterval: 0.2)  // the subscriptions reach the broker before the burst
        for index in 0..<count { try sender.publish("tb-loop/in/\(index)", text: "\(index)", qos: 1) }
        #expect(eventually(timeout: .seconds(30)) { arrived.all.count == count && answers.all.count == count })
        #expect(arrived.all.map(\.topic) == (0..<count).map { "tb-loop/in/\($0)" })
        let answered = Set(answers.all.map { String(decoding: $0.payload, as: UTF8.self) })
        #expect(answered == Set((0..<count).map(String.init)))
    }

    @Test("a wake-up is seen by poll until drained; a full pipe never blocks the thread that signals")
    func wakeSignal() throws {
        let signal = try WakeSignal()
        func readable() -> Bool {
            var descriptor = pollfd(fd: signal.readEnd, events: Int16(truncatingIfNeeded: POLLIN), revents: 0)
            return poll(&descriptor, 1, 0) == 1
        }
        #expect(!readable())
        signal.signal()
        #expect(readable())
        signal.drain()
        #expect(!readable())
        for _ in 0..<100_000 { signal.signal() }  // far past a pipe's 64 KB: each write fails, none waits
        #expect(readable())
        signal.drain()
        #expect(!readable())
    }
}

/// A reference the echo's handler can read its own client through (set once, before start).
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
