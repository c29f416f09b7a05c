import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeModel
import TraitBridgeStore

/// A restart: the registry puts the devices back, then the sources describe them again. A device
/// described as it was must come back whole (identity, info, per-trait sources) and cost no
/// registry write; a device that changed while the bridge was down is written.
@Suite("Restart from the registry")
struct RestartTests {
    /// The rows a first run leaves in the registry after it read the fixture list.
    /// With them, the devices and the descriptions it published.
    func firstRun() throws -> (rows: [DeviceStore.Row], devices: [DeviceID: Device], published: [String: [UInt8]]) {
        var state = try EngineFixtures.state()
        _ = state.brokerConnected(now: Date())
        let effects = state.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        let rows = effects.storeChanges.compactMap { change -> DeviceStore.Row? in
            guard case .upsert(let record) = change else { return nil }
            return DeviceStore.Row(record: record, firstSeen: Date(), lastSeen: Date())
        }
        var published: [String: [UInt8]] = [:]
        for publication in effects.publications { published[publication.topic] = publication.payload }
        return (rows, state.graph.devices, published)
    }

    @Test("restored devices keep their identity, info and the source of every trait")
    func fidelity() throws {
        let (rows, devices, _) = try firstRun()
        #expect(rows.count == 3)
        var restarted = try EngineFixtures.state()
        _ = restarted.restore(rows)
        for (id, original) in devices {
            let restored = try #require(restarted.graph.devices[id])
            #expect(restored.identity == original.identity)
            #expect(restored.info == original.info)
            #expect(restored.sources == original.sources)
            #expect(restored.traitAddresses == original.traitAddresses)
            #expect(
                restored.traitAddresses.map { restored.trait(at: $0)?.source }
                    == original.traitAddresses.map { original.trait(at: $0)?.source })
        }
    }

    @Test("the same list after a restart writes no registry row and logs no update; a renamed device is both")
    func noRewrite() throws {
        let (rows, _, _) = try firstRun()
        var restarted = try EngineFixtures.state()
        _ = restarted.restore(rows)
        _ = restarted.brokerConnected(now: Date())
        let again = restarted.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        let upserts = again.storeChanges.filter { if case .upsert = $0 { true } else { false } }
        #expect(upserts.isEmpty, "\(upserts.count) rows written for devices described as they were")
        let updates = again.logs.filter { $0.message.hasPrefix("updated device") }.map(\.message)
        #expect(updates.isEmpty, "\(updates)")
        let renamed = String(decoding: EngineFixtures.devicesPayload, as: UTF8.self).replacingOccurrences(
            of: "\"Relay\"", with: "\"Porch relay\"")
        let changed = restarted.receive("zigbee2mqtt/bridge/devices", renamed)
        let written = changed.storeChanges.compactMap { change -> DeviceID? in
            if case .upsert(let record) = change { record.id } else { nil }
        }
        #expect(written == [EngineFixtures.relay])
        let renamedUpdates = changed.logs.filter { $0.message.hasPrefix("updated device") }.map(\.message)
        #expect(renamedUpdates == ["updated device Porch relay"])
    }

    @Test("a restored device is described as before the restart (attributes, commands) before its source speaks")
    func descriptionKept() throws {
        let (rows, _, before) = try firstRun()
        var restarted = try EngineFixtures.state()
        _ = restarted.restore(rows)
        let connected = restarted.brokerConnected(now: Date())
        for row in rows {
            let topic = "traitbridge/devices/\(row.id.rawValue)"
            let published = try #require(connected.publications.last { $0.topic == topic }, "\(topic) not published")
            let described = String(decoding: try #require(before[topic], "\(topic) not described"), as: UTF8.self)
            #expect(String(decoding: published.payload, as: UTF8.self) == described)
        }
        // The sources then describe the devices as they were: no description is published again.
        let again = restarted.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        let descriptions = again.publications.filter { $0.topic.split(separator: "/").count == 3 }
        #expect(descriptions.map(\.topic).isEmpty, "published again")
    }
}
