import Foundation
import TraitBridgeCloud
import TraitBridgeModel
import TraitBridgeTesting

/// A test home: the devices of Fixtures/home-sync.json with the states of home-query.json, plus
/// local (non-cloud) Matter devices, ready to export.
enum CloudHome {
    static let c2c = CloudFixtures.c2c

    static func fixture(_ name: String) throws -> [UInt8] {
        let path = CloudFixtures.paths.repository + "/Tests/TraitBridgeCloudTests/Fixtures/" + name
        guard let data = FileManager.default.contents(atPath: path) else { throw FixtureError(path: path) }
        return [UInt8](data)
    }

    struct FixtureError: Error, CustomStringConvertible {
        var path: String
        var description: String { "cannot read fixture \(path)" }
    }

    /// The cloud devices, with QUERY states applied and unmapped states kept.
    static func cloudDevices() throws -> [CloudExportInput] {
        let sync = try c2c.importSync(try fixture("home-sync.json"), source: "home-sync.json", now: CloudFixtures.now)
        let query = try c2c.importReports(try fixture("home-query.json"), source: "home-query.json")
        return sync.devices.map { imported in
            var device = imported.device
            var extras: [String: AttributeValue] = [:]
            for report in query.reports where report.c2cID == imported.origin.c2cID {
                extras = c2c.apply(report, to: &device, now: CloudFixtures.now).unmapped
            }
            return CloudExportInput(device: device, roomName: imported.origin.roomHint, origin: imported.origin, extraStates: extras)
        }
    }

    /// Devices of local sources (no SYNC origin): a colour-temperature bulb and three sensors.
    static func localDevices() throws -> [CloudExportInput] {
        let catalog = c2c.catalog
        let source = SourceReference(family: "zigbee2mqtt", instance: "default", nativeID: "0x0001")
        func make(_ id: String, _ name: String, _ type: String, _ traits: [String], values: [String: [String: AttributeValue]]) throws -> Device {
            let instance = try catalog.makeDeviceType(key: "main", type: .matter(type), isPrimaryType: true, traits: traits.map { .matter($0) })
            var device = try Device(id: DeviceID(id), name: name, identity: DeviceIdentity(uniqueID: "\(id)-unique"), sources: [source], deviceTypes: [instance])
            for (trait, attributes) in values {
                for (attribute, value) in attributes {
                    try device.report(value, attribute: attribute, at: TraitAddress(deviceTypeKey: "main", traitID: .matter(trait)), catalog: catalog, time: CloudFixtures.now)
                }
            }
            device.setConnectivity(.online, locality: .localPeer, reason: .manual("test"), forTraitsOf: nil, time: CloudFixtures.now)
            return device
        }
        let bulb = try make("z2m-bulb", "Porch bulb", "ColorTemperatureLight", ["Identify", "OnOff", "LevelControl", "ColorControl"], values: [
            "OnOff": ["onOff": .bool(true)], "LevelControl": ["currentLevel": .int(127)],
            "ColorControl": ["colorMode": .int(2), "colorTemperatureMireds": .int(300)],
        ])
        let mireds = AttributeMetadata(format: .uint16, unit: .mireds, minimum: 153, maximum: 500)
        return [try camera()] + [
            CloudExportInput(device: bulb, roomName: "Porch", metadata: [TraitAddress(deviceTypeKey: "main", traitID: .matter("ColorControl")): ["colorTemperatureMireds": mireds]]),
            CloudExportInput(device: try make("z2m-temp", "Hall temperature", "TemperatureSensor", ["Identify", "TemperatureMeasurement"], values: ["TemperatureMeasurement": ["measuredValue": .int(2150)]])),
            CloudExportInput(device: try make("z2m-humidity", "Bath humidity", "HumiditySensor", ["Identify", "RelativeHumidityMeasurement"], values: ["RelativeHumidityMeasurement": ["measuredValue": .int(4530)]])),
            CloudExportInput(device: try make("z2m-door", "Back door", "ContactSensor", ["Identify", "BooleanState"], values: ["BooleanState": ["stateValue": .bool(true)]])),
        ]
    }

    /// A Frigate-like camera: Google's Camera type (live view, push transport) with motion.
    static func camera() throws -> CloudExportInput {
        let source = SourceReference(family: "frigate", instance: "default", nativeID: "front_door")
        let instance = try c2c.catalog.makeDeviceType(
            key: "main", type: .google("Camera"), isPrimaryType: true,
            traits: [.google("PushAvStreamTransport"), .google("WebRtcLiveView"), .matter("OccupancySensing")])
        var device = try Device(
            id: DeviceID("frigate-front_door"), name: "Front door camera", identity: DeviceIdentity(),
            sources: [source], deviceTypes: [instance])
        try device.report(
            .int(1), attribute: "occupancy",
            at: TraitAddress(deviceTypeKey: "main", traitID: .matter("OccupancySensing")),
            catalog: c2c.catalog, time: CloudFixtures.now)
        device.setConnectivity(
            .online, locality: .localPeer, reason: .manual("test"), forTraitsOf: nil, time: CloudFixtures.now)
        return CloudExportInput(device: device, roomName: "Front door")
    }

    /// Runs ../shared/tools/c2c-validate with `arguments`; the exit status and output.
    static func validate(_ arguments: [String]) throws -> (status: Int32, output: String) {
        guard let shared = CloudFixtures.paths.shared else { return (-1, "no ../shared") }
        return try TestTools.c2cValidate(shared, arguments)
    }

    static func write(_ bytes: [UInt8], name: String) throws -> String {
        let path = NSTemporaryDirectory() + "tb-cloud-\(getpid())-\(name)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
