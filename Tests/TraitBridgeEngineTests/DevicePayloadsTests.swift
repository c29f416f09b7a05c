import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeModel

@testable import TraitBridgeEngine

/// The state payload is the MQTT contract (ARCHITECTURE §5): its words are written as literals on the
/// hot path, so each must be exactly its enum's raw value, and the payload must read back as the model.
@Suite("Device payloads")
struct DevicePayloadsTests {
    @Test("every connectivity and locality word written as a literal is its raw value")
    func wordsAreRawValues() {
        for state in ConnectivityState.allCases { #expect(state.word.description == state.rawValue) }
        for locality in DataSourceLocality.allCases { #expect(locality.word.description == locality.rawValue) }
    }

    @Test("a sensor's state reads back with its types, traits, connectivity, reason and values")
    func stateReadsBack() throws {
        let (catalog, _) = try EngineFixtures.mappings.get()
        let sensor = try catalog.makeDeviceType(
            key: "temperature", type: .matter("TemperatureSensor"), isPrimaryType: true,
            traits: [.matter("Identify"), .matter("TemperatureMeasurement")])
        var device = try Device(id: DeviceID("hall-sensor"), name: "Hall \"sensor\"", deviceTypes: [sensor])
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        _ = device.setConnectivity(
            .offline, locality: .localPeer, reason: .availability(topic: "z2m/hall/availability", isOnline: false),
            forTraitsOf: nil, time: time)
        let address = TraitAddress(deviceTypeKey: "temperature", traitID: .matter("TemperatureMeasurement"))
        _ = try device.report(.int(2137), attribute: "measuredValue", at: address, catalog: catalog, time: time)

        let root = try JSONDocument.parse(DevicePayloads.state(of: device, lastUpdate: time)).root
        #expect(root["id"]?.string == "hall-sensor")
        #expect(root["name"]?.string == "Hall \"sensor\"")
        #expect(root["connectivityState"]?.string == "offline")
        #expect(root["dataSourceLocality"]?.string == "localPeer")
        #expect(root["lastUpdate"]?.string == "2023-11-14T22:13:20.000Z")
        let type = try #require(root["types"]?["temperature"])
        #expect(type["type"]?.string == "matter.TemperatureSensor")
        #expect(type["isPrimaryType"]?.bool == true)
        let trait = try #require(type["traits"]?["matter.TemperatureMeasurement"])
        #expect(trait["connectivityState"]?.string == "offline")
        #expect(trait["dataSourceLocality"]?.string == "localPeer")
        #expect(trait["reason"]?.string?.contains("z2m/hall/availability") == true)
        #expect(trait["reasonCode"]?.string?.isEmpty == false)
        #expect(trait["attributes"]?["measuredValue"]?.int64 == 2137)
    }
}
