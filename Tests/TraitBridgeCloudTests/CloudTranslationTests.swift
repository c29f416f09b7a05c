import Foundation
import Testing
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeMapping

@Suite("Cloud-to-cloud translation")
struct CloudTranslationTests {
    let c2c = CloudFixtures.c2c

    /// Type, traits, name, identity: what must survive an export and an import.
    func shape(_ device: Device) -> String {
        let types = device.deviceTypes.map { "\($0.typeID)[\($0.traits.map(\.traitID.description).joined(separator: ","))]" }
        return "\(device.name)|\(types.joined())|\(device.identity.uniqueID ?? "-")|\(device.identity.vendorID ?? 0)|\(device.identity.productID ?? 0)|\(device.identity.otherDeviceIDs.map(\.deviceID))"
    }

    @Test("round trip: importing an exported SYNC gives back the same devices, rooms and cloud fields")
    func roundTrip() throws {
        let devices = try CloudHome.cloudDevices() + CloudHome.localDevices()
        let exported = c2c.syncResponse(devices, agentUserID: "u", requestID: "r").response.serializedBytes()
        let again = try c2c.importSync(exported, source: "export", now: CloudFixtures.now)
        #expect(again.problems.isEmpty, "\(again.problems)")
        #expect(again.devices.count == devices.count)
        for (original, imported) in zip(devices, again.devices) {
            #expect(imported.origin.c2cID == original.c2cID)
            // Local devices come back as cloud devices of the same shape (their own id is the C2C id);
            // a camera as Google's CAMERA: C2C has live view (CameraStream) but no push transport.
            if original.device.id.rawValue == "frigate-front_door" {
                let camera = "google.CloudCamera[google.CameraStream,google.OccupancySensing]"
                #expect(shape(imported.device).contains(camera))
            } else {
                #expect(shape(imported.device) == shape(original.device))
            }
            #expect(imported.origin.roomHint == original.roomName)
            if let origin = original.origin {
                // Everything the SYNC said comes back as it was (the room is the device's current one).
                var again = imported.origin
                again.roomHint = origin.roomHint
                #expect(again == origin)
            }
        }
    }

    @Test("QUERY states become Matter values: spectrum to hue and saturation, °C to 0.01 °C, heat setpoint by mode")
    func queryValues() throws {
        let home = try CloudHome.cloudDevices()
        func values(_ id: String, _ trait: String) -> [String: AttributeValue] {
            let device = home.first { $0.c2cID == id }!.device
            return device.deviceTypes.flatMap(\.traits).first { $0.traitID.description == trait }?.attributes ?? [:]
        }
        #expect(values("color-light", "matter.ColorControl")["currentHue"] == .int(0))
        #expect(values("color-light", "matter.ColorControl")["currentSaturation"] == .int(254))
        #expect(values("color-light", "matter.ColorControl")["colorMode"] == .int(0))
        #expect(values("color-light", "matter.LevelControl")["currentLevel"] == .int(127))
        #expect(values("ct-light", "matter.ColorControl")["colorTemperatureMireds"] == .int(250))
        #expect(values("thermostat", "matter.Thermostat")["occupiedHeatingSetpoint"] == .int(2150))
        #expect(values("thermostat", "matter.Thermostat")["localTemperature"] == .int(1925))
        #expect(values("thermostat", "matter.Thermostat")["systemMode"] == .int(4))
        #expect(values("lock", "matter.DoorLock")["lockState"] == .int(1))
        #expect(values("blinds", "matter.WindowCovering")["currentPositionLiftPercent100ths"] == .int(7000))
        #expect(values("speaker", "google.Volume")["currentVolume"] == .int(12))
        // SensorState: each named sensor is its Matter trait; what has no Matter twin stays google.
        #expect(values("air", "matter.AirQuality")["airQuality"] == .int(3))
        #expect(values("air", "matter.CarbonDioxideConcentrationMeasurement")["measuredValue"] == .double(620))
        #expect(values("air", "matter.Pm25ConcentrationMeasurement")["measuredValue"] == .double(8.5))
        #expect(values("smoke", "matter.SmokeCoAlarm")["smokeState"] == .int(0))
        #expect(values("leak", "matter.BooleanState")["stateValue"] == .bool(true))
        #expect(values("leak", "google.SensorState")["currentSensorStateData"] != nil, "FilterLifeTime has no Matter twin")
        let types = home.reduce(into: [String: String]()) { $0[$1.c2cID] = $1.device.deviceTypes[0].typeID.description }
        #expect(types["air"] == "matter.AirQualitySensor")
        #expect(types["smoke"] == "matter.SmokeCoAlarm")
        #expect(types["leak"] == "matter.WaterLeakDetector")
        // States no trait holds are kept for the export.
        #expect(home.first { $0.c2cID == "lock" }?.extraStates["isJammed"] == .bool(false))
        #expect(home.first { $0.c2cID == "thermostat" }?.extraStates["thermostatHumidityAmbient"] == .int(40))
    }

    @Test("QUERY connectivity: offline with Google's errorCode as the reason, exceptions still online")
    func queryConnectivity() throws {
        let home = try CloudHome.cloudDevices()
        let plug = try #require(home.first { $0.c2cID == "plug" }).device
        #expect(plug.sourceConnectivity == SourceConnectivity(connectivityState: .offline, dataSourceLocality: .remote))
        let reason = plug.deviceTypes[0].traits[1].connectivity.reason
        #expect(reason == .cloudReported(isOnline: false, status: "OFFLINE", errorCode: "deviceOffline"))
        #expect(reason?.description == "QUERY said online:false status OFFLINE errorCode deviceOffline")
        let speaker = try #require(home.first { $0.c2cID == "speaker" }).device
        #expect(speaker.sourceConnectivity.connectivityState == .online)
        let scene = try #require(home.first { $0.c2cID == "scene" }).device
        #expect(scene.sourceConnectivity == SourceConnectivity(connectivityState: .unknown, dataSourceLocality: .remote))
    }

    @Test("EXECUTE commands become writes in Matter units, with Google's casing of params")
    func executeActions() throws {
        let home = try CloudHome.cloudDevices()
        let light = try #require(home.first { $0.c2cID == "color-light" }).device
        let address = { (trait: String) in TraitAddress(deviceTypeKey: "light", traitID: .matter(trait)) }
        func run(_ command: String, _ params: [String: AttributeValue], on device: Device) -> Result<[CloudAction], ExecuteFailure> {
            c2c.actions(for: ExecuteRequest.Execution(command: command, params: params, path: .root), on: device)
        }
        #expect(try run("OnOff", ["on": .bool(false)], on: light).get() == [.write(address("OnOff"), attribute: "onOff", value: .bool(false))])
        #expect(try run("BrightnessAbsolute", ["brightness": .int(100)], on: light).get() == [.write(address("LevelControl"), attribute: "currentLevel", value: .int(254))])
        #expect(try run("ColorAbsolute", ["color": .structure(["temperature": .int(2000)])], on: light).get()
            == [.write(address("ColorControl"), attribute: "colorTemperatureMireds", value: .int(500))])
        #expect(try run("ColorAbsolute", ["color": .structure(["spectrumRGB": .int(0x00FF00)])], on: light).get()
            == [.write(address("ColorControl"), attribute: "currentHue", value: .int(85)), .write(address("ColorControl"), attribute: "currentSaturation", value: .int(254))])
        #expect(throws: ExecuteFailure.self) { try run("BrightnessAbsolute", ["brightness": .int(150)], on: light).get() }
        if case .failure(let failure) = run("BrightnessAbsolute", ["brightness": .int(150)], on: light) { #expect(failure.errorCode == "valueOutOfRange") }
        if case .failure(let failure) = run("LockUnlock", ["lock": .bool(true)], on: light) { #expect(failure.errorCode == "functionNotSupported") } else { Issue.record("a light cannot lock") }
        let speaker = try #require(home.first { $0.c2cID == "speaker" }).device
        #expect(try run("setVolume", ["volumeLevel": .int(30)], on: speaker).get()
            == [.invoke(TraitAddress(deviceTypeKey: "speaker", traitID: .google("Volume")), command: "setVolume", arguments: ["volumeLevel": .int(30)])])
    }

    @Test("a colour or setpoint no model value can hold: EXECUTE answers valueOutOfRange naming it; QUERY reports a problem")
    func unholdableColour() throws {
        let home = try CloudHome.cloudDevices()
        var light = try #require(home.first { $0.c2cID == "color-light" }).device
        for (command, params, named) in [
            ("ColorAbsolute", ["color": AttributeValue.structure(["spectrumRGB": .double(1e300)])], "color.spectrumRGB"),
            ("ColorAbsolute", ["color": .structure(["spectrumHSV": .structure(["hue": .double(.infinity), "saturation": .double(1)])])], "color.spectrumHSV"),
        ] {
            let result = c2c.actions(for: ExecuteRequest.Execution(command: command, params: params, path: .root), on: light)
            guard case .failure(let failure) = result else {
                Issue.record("\(params) was taken: \(result)")
                continue
            }
            #expect(failure.errorCode == "valueOutOfRange")
            #expect(failure.message.contains(named), "\(failure.message)")
        }
        let report = CloudDeviceReport(c2cID: "color-light", online: true, states: ["color": .structure(["spectrumRgb": .double(1e300)])])
        let applied = c2c.apply(report, to: &light, now: CloudFixtures.now)
        #expect(applied.problems.contains { $0.contains("color.spectrumRgb") }, "\(applied.problems)")
    }

    @Test("writes on a cloud trait become the EXECUTE command a fulfillment needs")
    func relayCommands() throws {
        #expect(c2c.c2cCommand(writing: ["currentLevel": .int(127)], on: .matter("LevelControl"), current: [:])?.command == "BrightnessAbsolute")
        #expect(c2c.c2cCommand(writing: ["currentLevel": .int(127)], on: .matter("LevelControl"), current: [:])?.params == ["brightness": .int(50)])
        #expect(c2c.c2cCommand(writing: ["colorTemperatureMireds": .int(250)], on: .matter("ColorControl"), current: [:])?.params == ["color": .structure(["temperature": .int(4000)])])
        let origin = CloudDeviceOrigin(c2cID: "plug", type: "action.devices.types.OUTLET", traits: [], customData: .object(["hub": "h1"]))
        let request = c2c.relayRequest(origin: origin, command: "OnOff", params: ["on": .bool(true)], requestID: "r9")
        #expect(String(decoding: request.serializedBytes(), as: UTF8.self)
            == #"{"requestId":"r9","inputs":[{"intent":"action.devices.EXECUTE","payload":{"commands":[{"devices":[{"id":"plug","customData":{"hub":"h1"}}],"execution":[{"command":"action.devices.commands.OnOff","params":{"on":true}}]}]}}]}"#)
    }

    @Test("one bad device never stops the others: duplicate ids, wrong kinds, unknown types are each reported")
    func badDevices() throws {
        let sync = """
            {"devices": [
              {"id": "a", "type": "action.devices.types.OUTLET", "traits": ["action.devices.traits.OnOff"], "name": {"name": "A"}, "willReportState": true},
              {"id": "a", "type": "action.devices.types.OUTLET", "traits": ["action.devices.traits.OnOff"], "name": {"name": "A again"}, "willReportState": true},
              {"id": "b", "type": "action.devices.types.TOASTER", "traits": [], "name": {"name": "B"}, "willReportState": true},
              {"id": "c", "type": "action.devices.types.LIGHT", "traits": "action.devices.traits.OnOff", "name": {"name": "C"}, "willReportState": true},
              {"id": "d", "type": "action.devices.types.LIGHT", "traits": ["action.devices.traits.OnOff", "action.devices.traits.Foo"],
               "name": {"name": "D"}, "willReportState": "yes", "matterOriginalVendorId": 65521, "attributes": {"colorModel": "rgb"}},
              42
            ]}
            """
        let result = try c2c.importSync(CloudFixtures.bytes(sync), source: "bad.json", now: CloudFixtures.now)
        #expect(result.devices.map(\.device.id.rawValue) == ["c2c-a", "c2c-d"])
        #expect(result.problems.map(\.description) == [
            "devices[1].id: duplicate id 'a' (first at devices[0]) (device not imported)",
            "devices[2].type: unknown device type 'action.devices.types.TOASTER'; expected one of Google's action.devices.types.* (LIGHT, OUTLET, THERMOSTAT…) (device not imported)",
            "devices[3].traits: 'traits' must be an array of trait names (device not imported)",
            "devices[4].traits[1]: unknown trait 'action.devices.traits.Foo'; the trait is not imported",
            "devices[4].willReportState: expected true or false, found string",
            "devices[4].matterOriginalVendorId: expected a 16-bit hex string such as \"0xfff1\", found 65521 (dropped)",
            "devices[4].attributes.colorModel: belongs to no declared trait (declared: OnOff); dropped",
            "devices[5]: expected a device object, found number (device not imported)",
        ])
    }
}

extension CloudTranslationTests {
    @Test("the test home holds one device of each device type the table supports")
    func homeCoversTheTable() throws {
        let types = Set(try CloudHome.cloudDevices().map { $0.device.deviceTypes[0].typeID } + CloudHome.localDevices().map { $0.device.deviceTypes[0].typeID })
        let supported = Set(c2c.table.types.values.flatMap { $0.map(\.deviceType) })
        #expect(supported.subtracting(types).isEmpty, "not in the test home: \(supported.subtracting(types).sorted())")
    }
}
