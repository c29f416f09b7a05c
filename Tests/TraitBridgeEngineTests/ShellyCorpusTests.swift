import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// Every file of ../shared/corpus/shelly replayed through the bridge state in its recorded order,
/// with the devices and values we expect. Shelly has no discovery of its own: devices come from
/// their first announce or value, so the state machine (not only the source) is what is tested.
@Suite("Shelly corpus", .enabled(if: EngineFixtures.corpus != nil, "../shared/corpus is not present"))
struct ShellyCorpusTests {
    struct Expected: Sendable {
        var id: String
        var types: [String]
        var primary: String
        var uniqueID: String?
        var model: String?
        /// `<type key>/<trait>.<attribute>` → value after the whole file.
        var values: [String: AttributeValue]
        /// After the file: its last `online` word, or online when it only sent values (heard
        /// within the staleness budget).
        var connectivity: ConnectivityState
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var file: String
        /// Not MQTT traffic but an RPC snapshot: its `status` is sent as the NotifyFullStatus
        /// the device would publish on this prefix.
        var snapshotPrefix: String?
        var devices: [Expected]
        var testDescription: String { file }
    }

    static let rows: [Row] = [
        // The MQTT id was set to "shellies/shellyem3": topics have the root twice, the announce id a slash.
        .init(file: "gen1-em3-doubled-prefix-session.json", devices: [
            .init(id: "shelly-shellies-shellyem3", types: ["relay0", "emeter0", "emeter1", "emeter2"], primary: "relay0", uniqueID: "244CAB4354E2", model: "SHEM-3",
                  values: ["relay0/matter.OnOff.onOff": .bool(false), "emeter0/matter.ElectricalPowerMeasurement.voltage": .int(230_350),
                           "emeter1/matter.ElectricalPowerMeasurement.activeCurrent": .int(10), "emeter2/matter.ElectricalPowerMeasurement.powerFactor": .int(0)],
                  connectivity: .online),
        ]),
        // No announce for the plug: it is known from its first value. The Gen2 H&T wakes with NotifyFullStatus on a custom prefix.
        .init(file: "gen1-plugs-and-gen2-plusht-fullstatus.json", devices: [
            .init(id: "shelly-shelly-plug-s1", types: ["relay0-power", "relay0"], primary: "relay0", values: [
                "relay0/matter.OnOff.onOff": .bool(true), "relay0-power/matter.ElectricalPowerMeasurement.activePower": .int(20_580),
            ], connectivity: .online),
            .init(id: "shelly-shellyplusht-08b61fce63c4", types: ["battery0", "humidity0", "temperature0"], primary: "temperature0", uniqueID: "08B61FCE63C4", values: [
                "temperature0/matter.TemperatureMeasurement.measuredValue": .int(1990), "humidity0/matter.RelativeHumidityMeasurement.measuredValue": .int(5430),
                "battery0/matter.PowerSource.batPercentRemaining": .int(200), "battery0/matter.PowerSource.batVoltage": .int(6170),
            ], connectivity: .online),
        ]),
        .init(file: "gen1-shelly1-session.json", devices: [
            .init(id: "shelly-shelly1", types: ["relay0"], primary: "relay0", uniqueID: "8CAAB54B98DF", model: "SHSW-1",
                  values: ["relay0/matter.OnOff.onOff": .bool(false)], connectivity: .offline),
        ]),
        .init(file: "gen1-shelly25-roller-telemetry.json", devices: [
            .init(id: "shelly-shellyswitch25-485519032a7e", types: ["roller0", "roller0-power"], primary: "roller0", values: [
                "roller0/matter.WindowCovering.currentPositionLiftPercent100ths": .int(900), "roller0-power/matter.ElectricalPowerMeasurement.activePower": .int(0),
            ], connectivity: .online),
        ]),
        // `bat` is a number in /status; /info (an object there) only gives the MAC.
        .init(file: "gen1-trv-announce-status-info.json", devices: [
            .init(id: "shelly-shellytrv-abc123", types: ["thermostat", "battery"], primary: "thermostat", uniqueID: "AABBCCABC123", model: "SHTRV-01", values: [
                "thermostat/matter.Thermostat.localTemperature": .int(2030), "thermostat/matter.Thermostat.occupiedHeatingSetpoint": .int(2000),
                "battery/matter.PowerSource.batPercentRemaining": .int(198),
            ], connectivity: .online),
        ]),
        // The prefix differs from the device id; status/<component> repeats what NotifyStatus said.
        .init(file: "gen2-plus1pm-custom-prefix-session.json", devices: [
            .init(id: "shelly-shellyplus1pm-4417939341dc", types: ["switch0-power", "switch0"], primary: "switch0", uniqueID: "4417939341DC", values: [
                "switch0/matter.OnOff.onOff": .bool(true), "switch0-power/matter.ElectricalPowerMeasurement.voltage": .int(232_600),
            ], connectivity: .offline),
        ]),
        .init(file: "gen2-plus1pm-default-prefix-notifystatus.json", devices: [
            .init(id: "shelly-shellyplus1pm-4417939a5610", types: ["switch0", "switch0-power"], primary: "switch0", uniqueID: "4417939A5610", values: [
                "switch0/matter.OnOff.onOff": .bool(false), "switch0-power/matter.ElectricalPowerMeasurement.activePower": .int(0),
                "switch0-power/matter.ElectricalPowerMeasurement.voltage": .int(0),
            ], connectivity: .online),
        ]),
        .init(file: "gen2-plus1pm-rpc-snapshot-deviceinfo-config-status.json", snapshotPrefix: "shellyplus1pm-441793d69718", devices: [
            .init(id: "shelly-shellyplus1pm-441793d69718", types: ["switch0", "switch0-power"], primary: "switch0", uniqueID: "441793D69718", values: [
                "switch0/matter.OnOff.onOff": .bool(false), "switch0-power/matter.ElectricalPowerMeasurement.voltage": .int(232_900),
            ], connectivity: .online),
        ]),
        // Not calibrated (pos_control false): no position, but the cover and its motion state.
        .init(file: "gen2-plus2pm-cover-mode-rpc-snapshot.json", snapshotPrefix: "shellyplus2pm-5443b23d81f8", devices: [
            .init(id: "shelly-shellyplus2pm-5443b23d81f8", types: ["cover0", "cover0-power"], primary: "cover0", uniqueID: "5443B23D81F8", values: [
                "cover0/matter.WindowCovering.operationalStatus": .int(0), "cover0-power/matter.ElectricalPowerMeasurement.activePower": .int(0),
            ], connectivity: .online),
        ]),
    ]

    @Test("each file replays to the expected devices", arguments: rows)
    func replay(_ row: Row) throws {
        var state = try EngineFixtures.state(withShelly: true)
        _ = state.brokerConnected(now: Date())
        let messages = try Self.messages(row)
        var warnings: [String] = []
        for (topic, payload) in messages {
            let effects = state.handleMessage(topic: topic, payload: payload, now: Date())
            warnings += effects.logs.filter { $0.level == .warning }.map(\.message)
        }
        #expect(warnings.isEmpty, "\(warnings)")
        let shellyDevices = state.graph.devices.values.filter { $0.sources.first?.family == "shelly" }
        #expect(Set(shellyDevices.map(\.id.rawValue)) == Set(row.devices.map(\.id)))
        for expected in row.devices {
            let device = try #require(state.graph.devices[try DeviceID(expected.id)], "\(expected.id)")
            #expect(Set(device.deviceTypes.map(\.key)) == Set(expected.types), "\(expected.id)")
            #expect(device.primaryType?.key == expected.primary, "\(expected.id)")
            #expect(device.deviceTypes.filter(\.isPrimaryType).count == 1)
            if let uniqueID = expected.uniqueID { #expect(device.identity.uniqueID == uniqueID) }
            if let model = expected.model { #expect(device.info.model == model) }
            for (path, value) in expected.values {
                let parts = path.split(separator: "/", maxSplits: 1)
                let traitAndAttribute = parts[1].split(separator: ".")
                let trait = try #require(TraitID(parsing: traitAndAttribute.dropLast().joined(separator: ".")))
                let actual = device.trait(at: TraitAddress(deviceTypeKey: String(parts[0]), traitID: trait))?.attributes[String(traitAndAttribute.last!)]
                #expect(actual == value, "\(expected.id) \(path)")
            }
            #expect(device.sourceConnectivity.connectivityState == expected.connectivity, "\(expected.id)")
        }
    }

    static func messages(_ row: Row) throws -> [(String, [UInt8])] {
        let root = try JSONDocument.parse(try EngineFixtures.corpusBytes("shelly/" + row.file), maxDepth: 128).root
        if let prefix = row.snapshotPrefix {
            let source = try #require(root[path: "shelly.id"]?.string)
            let status = try #require(root["status"])
            let event: JSONValue = .object(["src": .string(source), "method": .string("NotifyFullStatus"), "params": AttributeValue(json: status).jsonValue])
            return [("\(prefix)/events/rpc", event.serializedBytes())]
        }
        return root.elements.compactMap { message in
            guard let topic = message["topic"]?.string else { return nil }
            return (topic, Array((message["payload"]?.string ?? "").utf8))
        }
    }
}
