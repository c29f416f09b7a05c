import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeStore

extension SourceConformanceTests {
    /// A source that declares what a device feeds (zigbee2mqtt's exposes) says so at discovery; one that does
    /// not (Tasmota, Shelly) says it once the value is heard. Either way the description names it after the
    /// first value, and the registry row is written exactly when that value changed the description.
    @Test(
        "after its first value a device's description names what it feeds; the registry row follows the description",
        arguments: drivers)
    func feedsAfterFirstValue(_ driver: Driver) throws {
        var state = try driver.makeState()
        _ = state.brokerConnected(now: Date())
        let topic = "traitbridge/devices/\(driver.id)"
        var described: JSON?
        for message in driver.discover {
            described = state.receive(message.topic, message.payload).last(topic) ?? described
        }
        let effects = state.receive(driver.value.topic, driver.value.payload)
        let description = try #require(effects.last(topic) ?? described, "\(driver.name): a description was published")
        #expect(Self.names(description, driver.valueAt), "\(driver.name): \(driver.valueAt) in \(description)")
        #expect(
            Self.rows(effects, driver).count == (effects.published(topic) ? 1 : 0),
            "\(driver.name): \(effects.storeChanges)")
    }

    /// Whether a description names the attribute `at` among those its trait feeds.
    static func names(_ description: JSON, _ at: (key: String, trait: String, attribute: String, value: AttributeValue))
        -> Bool
    {
        let path = JSONPath(components: [
            .key("types"), .key(at.key), .key("traits"), .key("matter.\(at.trait)"), .key("attributes"),
            .key(at.attribute),
        ])
        return description[path: path] != nil
    }

    /// The registry rows the effects write for the driver's device.
    static func rows(_ effects: BridgeEffects, _ driver: Driver) -> [StoreChange] {
        effects.storeChanges.filter { change in
            if case .upsert(let record) = change { record.id.rawValue == driver.id } else { false }
        }
    }

    /// A Matter node's message describes its devices and gives their values: each device is described,
    /// published and stored once, with the attributes its values hold — not first without them.
    @Test("described and given its values by one message: stored once; again: \"updated device\" only if it changed")
    func describedWithValues() throws {
        let driver = try #require(Self.drivers.first { $0.name == "Matter Server" })
        var state = try driver.makeState()
        _ = state.brokerConnected(now: Date())
        let topic = "traitbridge/devices/\(driver.id)"
        var effects = BridgeEffects()
        for message in driver.discover { effects = state.receive(message.topic, message.payload) }
        #expect(effects.publications.filter { $0.topic == topic }.count == 1, "\(effects.publications.map(\.topic))")
        #expect(Self.rows(effects, driver).count == 1, "\(effects.storeChanges)")
        let description = try #require(effects.last(topic))
        #expect(Self.names(description, driver.valueAt), "\(description)")
        let states = effects.publications.filter { $0.topic == topic + "/state" }
        #expect(!states.isEmpty && states.allSatisfy { !$0.payload.isEmpty })
        // Described again in one message: as it was, no row and no line; renamed, one row and "updated device".
        func updatedLines(_ effects: BridgeEffects) -> Int {
            effects.logs.filter { $0.message.hasPrefix("updated device") }.count
        }
        let same = state.receive(driver.online.topic, driver.online.payload)
        #expect(Self.rows(same, driver).isEmpty && updatedLines(same) == 0, "\(same.logs)")
        let update = try #require(driver.update)
        var renamed = BridgeEffects()
        for message in update.messages { renamed = state.receive(message.topic, message.payload) }
        #expect(Self.rows(renamed, driver).count == 1 && updatedLines(renamed) == 1, "\(renamed.logs)")
    }
}
