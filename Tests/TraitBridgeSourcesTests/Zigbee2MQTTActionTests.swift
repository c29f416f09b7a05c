import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources

/// A button's presses from zigbee2mqtt's `action`: a value (the last one) and a notification each,
/// read from a real device's entry and its recorded messages.
@Suite(
    "zigbee2mqtt actions: a button's presses",
    .enabled(if: SourceFixtures.corpus != nil, "../shared/corpus is not present"))
struct Zigbee2MQTTActionTests {
    static let action = TraitID(namespace: .vendor("traitbridge"), name: "Action")

    /// The Aqara WXKG11LM of the corpus listed alone; its device and the plug-in that knows it.
    static func listed() throws -> (plugin: Zigbee2MQTTPlugin, device: Device) {
        let list = try SourceFixtures.corpusJSON("zigbee2mqtt/matterbridge-bridge-devices-35.payload.json")
        let button = try #require(list.elements.first { $0["friendly_name"]?.string == "Scenes button" })
        var plugin = try Zigbee2MQTTPlugin(
            source: SourceFixtures.zigbee2mqtt(), baseTopic: "zigbee2mqtt", locality: .localPeer)
        var events: [SourceEvent] = []
        plugin.receive(
            SourceMessage(
                topic: "zigbee2mqtt/bridge/devices", payload: JSONValue.array([button.value]).serializedBytes(),
                now: Date()),
            into: &events)
        let described = events.compactMap { event -> Device? in
            if case .described(let device) = event { return device.device }
            return nil
        }
        return (plugin, try #require(described.first))
    }

    /// What one message on the button's topic meant: the actions it set and notified, and warnings.
    static func receive(_ payload: String, on plugin: inout Zigbee2MQTTPlugin) -> (
        values: [String], notified: [String], warnings: [String]
    ) {
        var events: [SourceEvent] = []
        plugin.receive(
            SourceMessage(topic: "zigbee2mqtt/Scenes button", payload: Array(payload.utf8), now: Date()),
            into: &events)
        var result: (values: [String], notified: [String], warnings: [String]) = ([], [], [])
        for event in events {
            switch event {
            case .values(_, let updates, _):
                for update in updates where update.attribute == "lastAction" {
                    if case .string(let name) = update.value { result.values.append(name) }
                }
            case .notification(_, let trait, let note):
                #expect(trait == action && note["kind"] == .string("action"))
                if let name = note["action"]?.stringValue { result.notified.append(name) }
            case .log(.warning, let message, _):
                result.warnings.append(message)
            default:
                break
            }
        }
        return result
    }

    @Test("a button is a Generic Switch with the Action trait, its actions the expose's values")
    func described() throws {
        let (plugin, device) = try Self.listed()
        let primary = try #require(device.deviceTypes.first { $0.isPrimaryType })
        #expect(primary.typeID.description == "matter.GenericSwitch")
        #expect(primary.traits.contains { $0.traitID == Self.action })
        let binding = try #require(
            plugin.bindings(of: device.id, at: TraitAddress(deviceTypeKey: primary.key, traitID: Self.action))?.first)
        #expect(
            binding.metadata.validValues?.map(\.value)
                == ["single", "double", "triple", "quadruple", "hold", "release"].map { .string($0) })
        #expect(device.deviceTypes.contains { $0.typeID.description == "matter.PowerSource" }, "its battery")
    }

    @Test("each recorded press is the last action and a notification, in order")
    func recordedPresses() throws {
        var plugin = try Self.listed().plugin
        var values: [String] = []
        var notified: [String] = []
        for message in try SourceFixtures.corpusMessages("zigbee2mqtt/state-button-aqara-wxkg11lm.json")
        where message.topic == "zigbee2mqtt/Scenes button" {
            let result = Self.receive(String(decoding: message.payload, as: UTF8.self), on: &plugin)
            #expect(result.warnings.isEmpty, "\(result.warnings)")
            values += result.values
            notified += result.notified
        }
        #expect(values == ["single", "double", "hold", "release"])
        #expect(notified == values)
    }

    @Test("no action, an empty one (zigbee2mqtt clearing it) or null: no press; an unlisted one: a warning")
    func notPresses() throws {
        var plugin = try Self.listed().plugin
        for payload in [#"{"battery":90}"#, #"{"action":""}"#, #"{"action":null,"battery":90}"#] {
            let result = Self.receive(payload, on: &plugin)
            #expect(result.values.isEmpty && result.notified.isEmpty && result.warnings.isEmpty, "\(payload)")
        }
        let unlisted = Self.receive(#"{"action":"sextuple"}"#, on: &plugin)
        #expect(unlisted.values.isEmpty && unlisted.notified.isEmpty)
        #expect(unlisted.warnings.count == 1)
        #expect(unlisted.warnings.first?.contains("\"sextuple\" is not one of this device's actions") == true)
        #expect(unlisted.warnings.first?.contains("single") == true, "names the ones there are")
        let number = Self.receive(#"{"action":7}"#, on: &plugin)
        #expect(number.notified.isEmpty && number.warnings.count == 1)
    }
}
