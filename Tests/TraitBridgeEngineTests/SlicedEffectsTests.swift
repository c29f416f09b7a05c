import Foundation
import Logging
import Synchronization
import Testing
import TraitBridgeEngine
import TraitBridgeMQTT
import TraitBridgeModel
import TraitBridgeStore
import TraitBridgeTesting

/// A message that brings many devices (a zigbee2mqtt list) has its effects performed in slices as
/// they are made (``BridgeState/effectsSlice``): the slices, in order, must be what one batch was.
@Suite("Effects of a long list, performed in slices", .serialized)
struct SlicedEffectsTests {
    /// `count` colour-temperature lights, as zigbee2mqtt lists them.
    static func list(_ count: Int) -> [UInt8] {
        let entries = (0..<count).map { index in
            #"{"ieee_address":"0x\#(String(format: "%016x", index + 1))","type":"Router","#
                + #""friendly_name":"Light \#(index)","#
                + #""definition":{"vendor":"IKEA","model":"LED1545G12","exposes":[{"type":"light","features":["#
                + #"{"type":"binary","name":"state","property":"state","access":7,"value_on":"ON","value_off":"OFF"},"#
                + #"{"type":"numeric","name":"brightness","property":"brightness","access":7,"#
                + #""value_min":0,"value_max":254}"#
                + "]}]}}"
        }
        return Array(("[" + entries.joined(separator: ",") + "]").utf8)
    }

    final class Slices: Sendable {
        let taken = Mutex<[BridgeEffects]>([])
    }

    @Test("slices of 100 publications, then the rest: the same publications and registry rows, in the same order")
    func slicesEqualTheWhole() throws {
        var whole = try EngineFixtures.state()
        var sliced = whole
        let slices = Slices()
        sliced.effectsSlice = EffectsSlice(publications: 100) { effects in
            slices.taken.withLock { $0.append(effects) }
        }
        let now = Date()
        for state in [0, 1] {
            var target = state == 0 ? whole : sliced
            _ = target.brokerConnected(now: now)
            _ = target.handleMessage(topic: "zigbee2mqtt/bridge/state", payload: Array("online".utf8), now: now)
            if state == 0 { whole = target } else { sliced = target }
        }
        slices.taken.withLock { $0 = [] }  // what the connect itself performed
        let list = Self.list(300)
        let one = whole.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: list, now: now)
        let rest = sliced.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: list, now: now)
        let taken = slices.taken.withLock { $0 }
        #expect(taken.count == 6, "600 publications: six slices of 100 (each taken once it reached 100)")
        #expect(taken.allSatisfy { $0.publications.count == 100 })
        let published = (taken + [rest]).flatMap(\.publications)
        #expect(published.map(\.topic) == one.publications.map(\.topic))
        #expect(published.map(\.payload) == one.publications.map(\.payload))
        let stored = (taken + [rest]).flatMap(\.storeChanges)
        #expect(stored.count == one.storeChanges.count && stored.count == 300)
        #expect((taken + [rest]).flatMap(\.changedDescriptions) == one.changedDescriptions)
        #expect(sliced.graph.devices.keys.sorted() == whole.graph.devices.keys.sorted())
    }

    @Test("while the broker is down nothing is sliced: what would be published then is dropped whole")
    func noSliceWhileDisconnected() throws {
        var state = try EngineFixtures.state()
        let slices = Slices()
        state.effectsSlice = EffectsSlice(publications: 10) { effects in slices.taken.withLock { $0.append(effects) } }
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: Self.list(50), now: Date())
        #expect(slices.taken.withLock { $0.isEmpty })
        #expect(state.graph.devices.count == 50)
    }

    // 3 000 publications: the runtime performs them 1 024 at a time.
    @Test("a 1 500-device list through the broker: every description, state and registry row arrives")
    func throughTheBroker() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tb-slices-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let broker = try MosquittoBroker()
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let store = try DeviceStore(directory: data)
        let bridge = Bridge(
            state: try EngineFixtures.state(), client: MQTTClientConfiguration(broker: try BrokerURL(broker.url)),
            store: store, logger: logger)
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/#"])
        let z2m = try TestMQTTClient(broker)
        try z2m.publish("zigbee2mqtt/bridge/state", "online", retain: true)
        try z2m.publish("zigbee2mqtt/bridge/devices", bytes: Self.list(1_500), retain: true)
        try bridge.start()
        defer { bridge.stop() }
        let last = "traitbridge/devices/z2m-0x\(String(format: "%016x", 1_500))"
        #expect(app.waitFor(last + "/state", timeout: .seconds(60)) != nil, "the last device's state")
        #expect(eventually { (try? store.all().count) == 1_500 }, "registry rows")
        let states = app.topics(prefix: "traitbridge/devices/z2m-", suffix: "/state")
        let descriptions = app.topics(prefix: "traitbridge/devices/z2m-").subtracting(states)
        #expect(states.count == 1_500)
        #expect(descriptions.count == 1_500)
    }
}
