import Testing
import TraitBridgeMapping
import TraitBridgeMatterCodec
import TraitBridgeMatterDevice
import TraitBridgeModel
import TraitBridgeTesting

@testable import TraitBridgeMatterBridge

/// Unified devices as bridged Matter endpoints, from the shipped catalog and `mappings/matter/clusters.json`:
/// device types and revisions, features from the device's data, values converted by format,
/// Bridged Device Basic Information, composed devices, Reachable from per-trait connectivity, and a
/// controller's command or write put back in the unified model's words.
@Suite("Matter bridge: devices as endpoints")
struct BridgedDevicePlannerTests {
    static let repository = TestPaths(filePath: #filePath).repository
    static let catalog = try! CatalogLoader.load(mappingsDirectory: repository + "/mappings")
    static let table = try! MatterClusterTable.load(mappingsDirectory: repository + "/mappings", catalog: catalog)
    static let planner = BridgedDevicePlanner(catalog: catalog, table: table)
    static let online = TraitConnectivity(state: .online, locality: .localPeer)
    static let offline = TraitConnectivity(
        state: .offline, locality: .localPeer,
        reason: .availability(topic: "zigbee2mqtt/x/availability", isOnline: false))

    static func trait(_ id: String, _ values: [String: AttributeValue], _ connectivity: TraitConnectivity = online)
        -> TraitInstance
    {
        TraitInstance(traitID: TraitID(parsing: id)!, attributes: values, connectivity: connectivity)
    }

    static func device(_ id: String, name: String? = nil, _ types: [(String, String, [TraitInstance])]) -> Device {
        var info = DeviceInfo()
        info.manufacturer = "IKEA of Sweden"
        info.model = "TRADFRI bulb E27 WS opal 980lm"
        return try! Device(
            id: DeviceID(id), name: name ?? id, info: info,
            deviceTypes: types.enumerated().map { index, type in
                DeviceTypeInstance(
                    key: type.0, typeID: DeviceTypeID(parsing: type.1)!, isPrimaryType: index == 0, traits: type.2)
            })
    }

    static var light: Device {
        device(
            "light-1", name: "Hall light",
            [
                (
                    "main", "matter.DimmableLight",
                    [
                        trait("matter.OnOff", ["onOff": .bool(true)]),
                        trait("matter.LevelControl", ["currentLevel": .int(127)]),
                    ]
                )
            ])
    }

    static func cluster(_ endpoint: PlannedEndpoint, _ id: UInt32) -> BridgedEndpoint.Cluster? {
        endpoint.clusters.first { $0.description.id == id }
    }

    @Test("a dimmable light: one endpoint, its type beside Bridged Node, Identify, On/Off with Lighting, Level")
    func dimmableLight() throws {
        let planned = Self.planner.plan(Self.light)
        let endpoint = try #require(planned.only)
        #expect(endpoint.key == "light-1" && endpoint.parent == nil && endpoint.deviceTypeKey == "main")
        let revision = try #require(Self.table.deviceTypeRevisions[DeviceTypeID(parsing: "matter.DimmableLight")!])
        #expect(
            endpoint.deviceTypes == [DeviceTypeRevision(0x0101, revision: revision), BridgedDevicePlanner.bridgedNode])
        #expect(endpoint.clusters.map(\.description.id) == [0x0003, 0x0006, 0x0008])
        let onOff = try #require(Self.cluster(endpoint, 0x0006))
        #expect(onOff.values[0x0000] == .bool(true))
        #expect(onOff.description.featureMap & 1 == 1, "Lighting, as the light device types require")
        #expect(onOff.values[0x4000] != nil, "GlobalSceneControl, mandatory with Lighting, from the table")
        #expect(Set([0, 1, 2]).isSubset(of: onOff.description.accepted))
        #expect(onOff.forwardedWrites.isEmpty, "onOff is not writable")
        let level = try #require(Self.cluster(endpoint, 0x0008))
        #expect(level.values[0x0000] == .unsigned(127))
        let information = try #require(endpoint.information)
        #expect(information.name == "Hall light" && information.isReachable)
        #expect(information.vendorName == "IKEA of Sweden")
    }

    @Test("attributes that name the features follow them: color mode and capabilities, the control sequence")
    func derived() throws {
        let hueOnly = Self.device(
            "hue-1",
            [
                (
                    "main", "matter.ExtendedColorLight",
                    [Self.trait("matter.ColorControl", ["currentHue": .int(10), "currentSaturation": .int(20)])]
                )
            ])
        let color = try #require(Self.planner.plan(hueOnly).only.flatMap { Self.cluster($0, 0x0300) })
        #expect(color.description.featureMap & 0x19 == 0x01, "HS only: \(color.description.featureMap)")
        #expect(color.values[0x0008] == .unsigned(0) && color.values[0x4001] == .unsigned(0), "hue and saturation mode")
        #expect(color.values[0x400A] == .unsigned(UInt64(color.description.featureMap & 0x1F)))
        let both = Self.device(
            "thermostat-1",
            [
                (
                    "main", "matter.Thermostat",
                    [
                        Self.trait(
                            "matter.Thermostat",
                            [
                                "localTemperature": .int(2000), "occupiedHeatingSetpoint": .int(2100),
                                "occupiedCoolingSetpoint": .int(2500), "systemMode": .int(1),
                            ])
                    ]
                )
            ])
        let thermostat = try #require(Self.planner.plan(both).only.flatMap { Self.cluster($0, 0x0201) })
        #expect(thermostat.values[0x001B] == .unsigned(4), "heating and cooling")
        #expect(thermostat.forwardedWrites.contains(0x0012), "the heating setpoint is the device's to write")
    }

    @Test("Bridged Device Basic Information: NodeLabel, UniqueID, Reachable; strings cut to 32 bytes")
    func basicInformation() {
        let information = BridgedInformation(
            name: "Lümmel-Leuchte im Wohnzimmer am Fenster", vendorName: nil, vendorID: nil, productName: nil,
            productID: nil, hardwareVersion: nil, softwareVersion: "1.0.9", serialNumber: nil, isReachable: false)
        let cluster = information.cluster(uniqueID: String(repeating: "a", count: 32))
        #expect(cluster.description.id == 0x0039)
        guard case TLVValue.string(let label)? = cluster.values[0x05] else {
            Issue.record("no NodeLabel in \(cluster.values)")
            return
        }
        #expect(label.utf8.count <= 32 && "Lümmel-Leuchte im Wohnzimmer am Fenster".hasPrefix(label))
        #expect(
            cluster.values[0x11] == .bool(false) && cluster.values[0x12] == .string(String(repeating: "a", count: 32)))
        #expect(cluster.values[0x0A] == .string("1.0.9") && cluster.values[0x01] == nil)
        #expect(cluster.forwardedWrites == [0x05] && cluster.localWrites.isEmpty, "a written NodeLabel renames")
    }

    @Test("a climate sensor is composed: a Bridged Node top with the information, a child per type")
    func composed() throws {
        let climate = Self.device(
            "climate-1",
            [
                (
                    "temperature", "matter.TemperatureSensor",
                    [Self.trait("matter.TemperatureMeasurement", ["measuredValue": .int(2150)])]
                ),
                (
                    "humidity", "matter.HumiditySensor",
                    [Self.trait("matter.RelativeHumidityMeasurement", ["measuredValue": .int(4500)])]
                ),
            ])
        let planned = Self.planner.plan(climate)
        #expect(planned.map(\.key) == ["climate-1", "climate-1/temperature", "climate-1/humidity"])
        #expect(planned[0].deviceTypes == [BridgedDevicePlanner.bridgedNode] && planned[0].clusters.isEmpty)
        #expect(planned[0].information != nil && planned[1].information == nil && planned[2].information == nil)
        #expect(planned[1].parent == "climate-1" && planned[1].deviceTypes.map(\.deviceType) == [0x0302])
        #expect(Self.cluster(planned[1], 0x0402)?.values[0] == .signed(2150))
        #expect(Self.cluster(planned[2], 0x0405)?.values[0] == .unsigned(4500))
        #expect(Self.cluster(planned[1], 0x0405) == nil, "never humidity on the temperature sensor")
    }

    @Test("a device with no type the table serves has no endpoint")
    func notServed() {
        let speaker = Self.device(
            "speaker-1", [("main", "matter.Speaker", [Self.trait("matter.OnOff", ["onOff": .bool(true)])])])
        if Self.table.deviceTypeRevisions[DeviceTypeID(parsing: "matter.Speaker")!] == nil {
            #expect(Self.planner.plan(speaker).isEmpty)
        }
        let empty = Self.device("empty-1", [])
        #expect(Self.planner.plan(empty).isEmpty)
    }

    @Test("Reachable: one trait online is enough; offline or lost is false; never heard is true")
    func reachable() {
        let lost = TraitConnectivity(state: .unknown, locality: .localPeer, reason: .brokerDisconnected(broker: "b"))
        let neverHeard = TraitConnectivity.initial
        func reachable(_ states: [TraitConnectivity]) -> Bool {
            BridgedDevicePlanner.isReachable(states.map { Self.trait("matter.OnOff", [:], $0) })
        }
        #expect(reachable([Self.online]))
        #expect(!reachable([Self.offline]))
        #expect(reachable([Self.online, Self.offline]), "partially online is reachable")
        #expect(!reachable([lost]) && !reachable([lost, neverHeard]))
        #expect(reachable([neverHeard]) && reachable([]))
    }

    @Test("a controller's Toggle, MoveToLevelWithOnOff and a write become unified requests; the unknown say why")
    func unifiedRequests() throws {
        let toggle = EndpointRequest(endpoint: 2, cluster: 0x0006, action: .invoke(command: 2, fields: .structure([])))
        let unified = try Self.planner.unified(toggle, deviceTypeKey: "main").get()
        #expect(
            unified
                == UnifiedRequest(
                    trait: .matter("OnOff"), deviceTypeKey: "main", action: .invoke(command: "toggle", arguments: [:])))

        let fields = TLVValue.structure([
            TLVElement(tag: .context(0), value: .unsigned(200)), TLVElement(tag: .context(1), value: .null),
            TLVElement(tag: .context(2), value: .unsigned(0)), TLVElement(tag: .context(3), value: .unsigned(0)),
        ])
        let level = EndpointRequest(endpoint: 2, cluster: 0x0008, action: .invoke(command: 4, fields: fields))
        let dim = try Self.planner.unified(level, deviceTypeKey: "main").get()
        guard case .invoke("moveToLevel", let arguments) = dim.action else {
            Issue.record("not moveToLevel: \(dim)")
            return
        }
        #expect(arguments["level"] == .int(200))

        let unknown = EndpointRequest(endpoint: 2, cluster: 0xFC00, action: .invoke(command: 0, fields: .structure([])))
        #expect(throws: RequestError.self) { try Self.planner.unified(unknown, deviceTypeKey: "main").get() }
        let write = EndpointRequest(
            endpoint: 2, cluster: 0x0006, action: .write(attribute: 0x4001, value: .unsigned(5)))
        #expect(
            try Self.planner.unified(write, deviceTypeKey: "main").get().action
                == .write(attribute: "onTime", value: .int(5)))
    }

    @Test("values by format: integers in range and whole, floats, null only where nullable, strings by bytes")
    func values() {
        let uint8 = AttributeMetadata(format: .uint8)
        let int16 = AttributeMetadata(format: .int16, isNullable: true)
        #expect(MatterValues.tlv(.int(254), as: uint8) == .unsigned(254))
        #expect(MatterValues.tlv(.int(256), as: uint8) == nil && MatterValues.tlv(.int(-1), as: uint8) == nil)
        #expect(
            MatterValues.tlv(.double(12.5), as: uint8) == nil
                && MatterValues.tlv(.double(12), as: uint8) == .unsigned(12))
        #expect(MatterValues.tlv(.double(.nan), as: uint8) == nil && MatterValues.tlv(.double(1e300), as: int16) == nil)
        #expect(MatterValues.tlv(.int(-2150), as: int16) == .signed(-2150))
        #expect(MatterValues.tlv(.null, as: int16) == .null && MatterValues.tlv(.null, as: uint8) == nil)
        #expect(MatterValues.tlv(.string("x"), as: uint8) == nil)
        #expect(
            MatterValues.attributeValue(.unsigned(.max)) == nil && MatterValues.attributeValue(.float(.infinity)) == nil
        )
        #expect(MatterValues.truncated("ééé", toBytes: 5) == "éé")
    }

    @Test("conformance: M, O, a feature, its negation, optional brackets, otherwise, or/and")
    func conformance() {
        let lighting: Set<String> = ["LT"]
        #expect(Conformance("M", features: []) == .mandatory && Conformance("O", features: []) == .optional)
        #expect(Conformance("LT", features: lighting) == .mandatory && Conformance("LT", features: []) == .disallowed)
        #expect(
            Conformance("!OFFONLY", features: lighting) == .mandatory
                && Conformance("!LT", features: lighting) == .disallowed)
        #expect(
            Conformance("[LT]", features: lighting) == .optional && Conformance("[LT]", features: []) == .disallowed)
        #expect(
            Conformance("HS, O", features: []) == .optional && Conformance("HS | XY", features: ["XY"]) == .mandatory)
        #expect(
            Conformance("HS & XY", features: ["XY"]) == .disallowed && Conformance("X", features: []) == .disallowed)
        #expect(Conformance("NumberOfPrimaries > 0", features: []) == .optional)
    }
}

extension Array {
    var only: Element? { count == 1 ? first : nil }
}
