import Foundation
import Synchronization
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

@testable import TraitBridgeEngine

/// What the network thread delivers while the registry is restored is held, then handed on in
/// the order it came, including what comes while the held items are being handed on.
@Suite("Traffic held while the registry is restored")
struct TrafficGateTests {
    func message(_ number: Int) -> TrafficGate.Item {
        .message(MQTTMessage(topic: "t/\(number)", payload: Array("\(number)".utf8)), Date())
    }

    func topic(_ item: TrafficGate.Item) -> String {
        switch item {
        case .message(let message, _): message.topic
        case .event(let event, _): "event \(event)"
        }
    }

    @Test("closed, it holds; opened, it hands everything on in order, then passes items straight back")
    func order() {
        let gate = TrafficGate(isOpen: false)
        #expect(gate.hold(.event(.connected(broker: "mqtt://127.0.0.1:1"), Date())) == nil)
        for number in 0..<5 { #expect(gate.hold(message(number)) == nil) }
        var handed: [String] = []
        gate.open { handed.append(topic($0)) }
        #expect(handed.first?.hasPrefix("event") == true)
        #expect(Array(handed.dropFirst()) == (0..<5).map { "t/\($0)" })
        #expect(gate.isOpened)
        #expect(gate.hold(message(9)).map(topic) == "t/9")
    }

    @Test("what arrives while the held items are handed on comes after them, never before")
    func arrivingWhileOpening() {
        let gate = TrafficGate(isOpen: false)
        for number in 0..<100 { _ = gate.hold(message(number)) }
        let handed = Mutex<[String]>([])
        let sender = Thread {
            for number in 100..<2_100 {
                // Held while the gate is closed; handed back (and so handled here) once it is open.
                if let item = gate.hold(message(number)) { handed.withLock { $0.append(topic(item)) } }
            }
        }
        sender.start()
        gate.open { item in handed.withLock { $0.append(topic(item)) } }
        #expect(eventually { handed.withLock { $0.count } == 2_100 })
        #expect(handed.withLock { $0 } == (0..<2_100).map { "t/\($0)" })
    }

    @Test("an open gate holds nothing")
    func openFromTheStart() {
        let gate = TrafficGate(isOpen: true)
        #expect(gate.hold(message(1)).map(topic) == "t/1")
        var handed = 0
        gate.open { _ in handed += 1 }
        #expect(handed == 0)
    }
}
