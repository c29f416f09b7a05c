import FoundationEssentials
import Testing
import TraitBridgeModel

/// A small catalog built in code: the model tests do not depend on the mappings files.
func testCatalog() throws -> Catalog {
    let onOff = TraitDefinition(
        id: .matter("OnOff"), displayName: "On/Off", clusterID: 6,
        attributes: [AttributeDefinition(name: "onOff", metadata: AttributeMetadata(format: .bool, isWritable: true), isRequired: true)])
    let level = TraitDefinition(
        id: .matter("LevelControl"), displayName: "Level Control", clusterID: 8,
        attributes: [AttributeDefinition(name: "currentLevel", metadata: AttributeMetadata(format: .uint8, unit: .level, minimum: 1, maximum: 254, isWritable: true, isNullable: true))])
    let identify = TraitDefinition(id: .matter("Identify"), displayName: "Identify", clusterID: 3)
    let temperature = TraitDefinition(
        id: .matter("TemperatureMeasurement"), displayName: "Temperature Measurement", clusterID: 0x402,
        attributes: [AttributeDefinition(name: "measuredValue", metadata: AttributeMetadata(format: .int16, unit: .celsius100ths, minimum: -27315, maximum: 32767, isNullable: true))])
    return try Catalog(
        traits: [onOff, level, identify, temperature],
        deviceTypes: [
            DeviceTypeDefinition(id: .matter("DimmableLight"), displayName: "Dimmable Light", matterID: 0x101, requiredTraits: [.matter("Identify"), .matter("OnOff"), .matter("LevelControl")]),
            DeviceTypeDefinition(id: .matter("Speaker"), displayName: "Speaker", matterID: 0x22, requiredTraits: [.matter("OnOff"), .matter("LevelControl")]),
            DeviceTypeDefinition(id: .matter("TemperatureSensor"), displayName: "Temperature Sensor", matterID: 0x302, requiredTraits: [.matter("Identify"), .matter("TemperatureMeasurement")]),
        ])
}

@Suite("Devices, device types and traits")
struct DeviceTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    func speakerLight(_ catalog: Catalog) throws -> Device {
        let light = try catalog.makeDeviceType(key: "light", type: .matter("DimmableLight"), isPrimaryType: true,
            traits: [.matter("Identify"), .matter("OnOff"), .matter("LevelControl")])
        let speaker = try catalog.makeDeviceType(key: "speaker", type: .matter("Speaker"), isPrimaryType: false,
            traits: [.matter("OnOff"), .matter("LevelControl")])
        return try Device(id: DeviceID("combo-1"), name: "Lamp Speaker", deviceTypes: [light, speaker])
    }

    @Test("a speaker + dimmable light holds two OnOff traits that never collide")
    func twoOnOffTraits() throws {
        let catalog = try testCatalog()
        var device = try speakerLight(catalog)
        let lightOnOff = try device.resolve(.matter("OnOff"), deviceTypeKey: "light")
        let speakerOnOff = try device.resolve(.matter("OnOff"), deviceTypeKey: "speaker")
        try device.report(.bool(true), attribute: "onOff", at: lightOnOff, catalog: catalog, time: t0)
        try device.report(.bool(false), attribute: "onOff", at: speakerOnOff, catalog: catalog, time: t0)
        #expect(device.trait(at: lightOnOff)?.attributes["onOff"] == .bool(true))
        #expect(device.trait(at: speakerOnOff)?.attributes["onOff"] == .bool(false))
        #expect(throws: ModelError.ambiguousTrait(.matter("OnOff"), deviceTypeKeys: ["light", "speaker"])) {
            try device.resolve(.matter("OnOff"))
        }
        #expect(try device.resolve(.matter("Identify")) == TraitAddress(deviceTypeKey: "light", traitID: .matter("Identify")))
        #expect(device.primaryType?.key == "light")
        #expect(device.traitAddresses.count == 5)
    }

    @Test("a device type without a required trait cannot be made, as in the Home APIs")
    func requiredTraits() throws {
        let catalog = try testCatalog()
        #expect(throws: ModelError.missingRequiredTraits(type: .matter("DimmableLight"), missing: [.matter("LevelControl")])) {
            try catalog.makeDeviceType(key: "light", type: .matter("DimmableLight"), isPrimaryType: true, traits: [.matter("Identify"), .matter("OnOff")])
        }
        #expect(throws: ModelError.unknownTrait(.matter("Nope"))) {
            try catalog.makeDeviceType(key: "x", type: .matter("Speaker"), isPrimaryType: true, traits: [.matter("OnOff"), .matter("LevelControl"), .matter("Nope")])
        }
        #expect(throws: ModelError.unknownDeviceType(.matter("Toaster"))) {
            try catalog.makeDeviceType(key: "x", type: .matter("Toaster"), isPrimaryType: true, traits: [])
        }
    }

    @Test("device type keys are unique and only one type is primary")
    func deviceInvariants() throws {
        let catalog = try testCatalog()
        let sensor = try catalog.makeDeviceType(key: "t", type: .matter("TemperatureSensor"), isPrimaryType: true,
            traits: [.matter("Identify"), .matter("TemperatureMeasurement")])
        #expect(throws: ModelError.duplicateDeviceTypeKey("t")) { try Device(id: DeviceID("d"), name: "d", deviceTypes: [sensor, sensor]) }
        var second = sensor
        second.key = "t2"
        #expect(throws: ModelError.multiplePrimaryTypes(["t", "t2"])) { try Device(id: DeviceID("d"), name: "d", deviceTypes: [sensor, second]) }
    }

    @Test("a rejected report changes nothing and says which bound it broke")
    func rejectedReport() throws {
        let catalog = try testCatalog()
        var device = try speakerLight(catalog)
        let level = try device.resolve(.matter("LevelControl"), deviceTypeKey: "light")
        #expect(try device.report(.int(200), attribute: "currentLevel", at: level, catalog: catalog, time: t0))
        #expect(try !device.report(.int(200), attribute: "currentLevel", at: level, catalog: catalog, time: t0), "unchanged value")
        let before = device
        do {
            try device.report(.int(255), attribute: "currentLevel", at: level, catalog: catalog, time: t0)
            Issue.record("255 is out of range")
        } catch {
            #expect(error.description == "light/matter.LevelControl.currentLevel: 255 is above the maximum 254; allowed 1…254 level 1..254")
        }
        #expect(throws: ModelError.self) { try device.report(.int(1), attribute: "nope", at: level, catalog: catalog, time: t0) }
        #expect(device == before)
    }

    @Test("writes are validated against the catalog without changing the device")
    func writeValidation() throws {
        let catalog = try testCatalog()
        let device = try speakerLight(catalog)
        let level = try device.resolve(.matter("LevelControl"), deviceTypeKey: "speaker")
        try device.validateWrite(.int(254), attribute: "currentLevel", at: level, catalog: catalog)
        #expect(throws: ModelError.self) { try device.validateWrite(.int(0), attribute: "currentLevel", at: level, catalog: catalog) }
    }

    @Test("an offline trait makes its type and the device partiallyOnline; locality aggregates to mixed")
    func aggregation() throws {
        let catalog = try testCatalog()
        var device = try speakerLight(catalog)
        for address in device.traitAddresses {
            try device.setConnectivity(.online, locality: .localPeer, reason: .messageReceived(topic: "zigbee2mqtt/combo"), at: address, time: t0)
        }
        #expect(device.sourceConnectivity == SourceConnectivity(connectivityState: .online, dataSourceLocality: .localPeer))
        let speakerLevel = TraitAddress(deviceTypeKey: "speaker", traitID: .matter("LevelControl"))
        try device.setConnectivity(.offline, locality: .remote, reason: .cloudReported(isOnline: false, status: "OFFLINE", errorCode: nil), at: speakerLevel, time: t0 + 5)
        #expect(device.deviceType(key: "speaker")?.sourceConnectivity == SourceConnectivity(connectivityState: .partiallyOnline, dataSourceLocality: .mixed))
        #expect(device.deviceType(key: "light")?.sourceConnectivity.connectivityState == .online)
        #expect(device.sourceConnectivity == SourceConnectivity(connectivityState: .partiallyOnline, dataSourceLocality: .mixed))
        #expect(device.trait(at: speakerLevel)?.connectivity.reason?.code == "cloudReported")
        #expect(device.trait(at: speakerLevel)?.connectivity.since == t0 + 5)
    }

    @Test("device ids are topic-safe; derived ids from any native id are valid")
    func deviceIDs() throws {
        for bad in ["", "a/b", "a+b", "#", ".hidden", String(repeating: "x", count: 129), "ü"] {
            #expect(throws: ModelError.invalidDeviceID(bad)) { try DeviceID(bad) }
        }
        #expect(try DeviceID("z2m-0x00158d0001a2b3c4").rawValue == "z2m-0x00158d0001a2b3c4")
        let derived = DeviceID.derived(source: "zigbee2mqtt", nativeID: "Living Room/Lamp #1")
        #expect(derived.rawValue == "zigbee2mqtt-living-room-lamp--1")
        #expect(DeviceID.isValid(derived.rawValue))
    }

    @Test(
        "a derived id is the same whether the native id is ASCII (read byte by byte) or not",
        arguments: [
            "Living Room/Lamp #1", ".dot", "UPPER.lower_mixed-09", String(repeating: "Ab", count: 80), "\r\n\t x",
            "0x00158D0001A2B3C4", "", "~!@[]{}`", "Zürich", "İstanbul", "ﬃ", "e\u{301}",
            String(repeating: "é", count: 70),
        ])
    func derivedASCII(_ nativeID: String) {
        // The rules written once over Unicode scalars (what non-ASCII ids still go through).
        var text = "x.Y-\(nativeID)".lowercased()
        let allowed = { (scalar: Unicode.Scalar) in
            ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || [".", "_", "-"].contains(scalar)
        }
        text = String(text.unicodeScalars.map { allowed($0) ? Character($0) : "-" })
        let expected = String(text.prefix(128))
        let derived = DeviceID.derived(source: "x.Y", nativeID: nativeID)
        #expect(derived.rawValue == expected)
        #expect(DeviceID.isValid(derived.rawValue))
        #expect(DeviceID.derived(source: ".s", nativeID: nativeID).rawValue.hasPrefix("-s-"))
    }

    @Test("identity matches by unique id, serial, or other device ids")
    func identity() {
        let local = DeviceIdentity(uniqueID: "0x00158d0001a2b3c4", otherDeviceIDs: [OtherDeviceID(deviceID: "lamp-1")])
        #expect(local.matches(DeviceIdentity(uniqueID: "0x00158d0001a2b3c4")))
        #expect(local.matches(DeviceIdentity(uniqueID: "cloud-9", otherDeviceIDs: [OtherDeviceID(agentID: "hub", deviceID: "0x00158d0001a2b3c4")])))
        #expect(local.matches(DeviceIdentity(otherDeviceIDs: [OtherDeviceID(deviceID: "lamp-1")])))
        #expect(!local.matches(DeviceIdentity(uniqueID: "other")))
        #expect(DeviceIdentity(vendorID: 1, serialNumber: "S1").matches(DeviceIdentity(vendorID: 1, serialNumber: "S1")))
        #expect(!DeviceIdentity(vendorID: 1, serialNumber: "S1").matches(DeviceIdentity(vendorID: 2, serialNumber: "S1")))
        #expect(!DeviceIdentity().matches(DeviceIdentity()))
    }
}
