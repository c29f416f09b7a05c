import Foundation
import Logging
import Testing
import TraitBridgeEngine
import TraitBridgeMQTT
import TraitBridgeModel
import TraitBridgeStore
import TraitBridgeTesting

/// The effects of the messages one network read brings are performed together (one registry
/// transaction for up to 64 of them): a burst must end as if each had been performed alone.
/// How many messages one read brings is libmosquitto's to decide (a retained burst at subscribe
/// time: several; live messages: often one), so this checks the outcome, whatever the grouping.
@Suite("Effects of a burst of messages, performed together", .serialized)
struct BatchedEffectsTests {
    static func config(_ uid: String) -> String {
        #"{"name":null,"unique_id":"\#(uid)","state_topic":"burst/\#(uid)/state","command_topic":"burst/\#(uid)/set","#
            + #""device":{"identifiers":["\#(uid)"],"name":"Plug \#(uid)"}}"#
    }

    @Test("discovery messages, removals and re-adds in bursts: the registry and the broker agree")
    func burst() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tb-burst-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let broker = try MosquittoBroker()
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let store = try DeviceStore(directory: data)
        let bridge = Bridge(
            state: try EngineFixtures.state(withHomeAssistant: true),
            client: MQTTClientConfiguration(broker: try BrokerURL(broker.url)), store: store, logger: logger)
        try bridge.start()
        defer { bridge.stop() }
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/+"])
        let ha = try TestMQTTClient(broker)
        let uids = (0..<200).map { String(format: "p%03d", $0) }
        for uid in uids { try ha.publish("homeassistant/switch/\(uid)/config", Self.config(uid)) }
        try ha.publish("homeassistant/switch/p199/config", "")  // removed
        for index in 0..<50 {  // added and removed at once (the rows' order in one batch: DeviceStoreTests)
            let uid = String(format: "q%03d", index)
            try ha.publish("homeassistant/switch/\(uid)/config", Self.config(uid))
            try ha.publish("homeassistant/switch/\(uid)/config", "")
        }
        try ha.publish("homeassistant/switch/p007/config", "")  // removed, then back
        try ha.publish("homeassistant/switch/p007/config", Self.config("p007"))
        try ha.publish("homeassistant/switch/last/config", Self.config("last"))

        #expect(app.waitFor("traitbridge/devices/ha-last", timeout: .seconds(30)) != nil, "the burst's last device")
        let expected = Set(uids.filter { $0 != "p199" } + ["last"]).map { "ha-\($0)" }.sorted()
        let local = { (ids: [String]) in ids.filter { $0.hasPrefix("ha-") }.sorted() }
        #expect(eventually { (try? store.all().map(\.id.rawValue)).map(local) == expected }, "registry rows")
        #expect(local(bridge.snapshot.graph.devices.keys.map(\.rawValue)) == expected)
        #expect(app.waitFor("traitbridge/devices/ha-p199") { $0.payload.isEmpty } != nil, "its description cleared")
    }
}
