import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// Paths of the repository, found from this file so tests work from any working directory.
enum Paths {
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let mappings = repository + "/mappings"
    static let fixtures = repository + "/Tests/TraitBridgeMappingTests/Fixtures"
    /// `../shared` beside the repository, when present.
    static let shared: String? = {
        let path = URL(fileURLWithPath: repository).deletingLastPathComponent().appendingPathComponent("shared").path
        return FileManager.default.fileExists(atPath: path + "/reference/matter-device-types.json") ? path : nil
    }()
}

@Suite("Catalog loading and validation")
struct CatalogLoaderTests {
    @Test("the shipped catalog loads with no problems")
    func shippedCatalogIsClean() throws {
        let (catalog, problems) = CatalogLoader.validate(mappingsDirectory: Paths.mappings)
        #expect(problems.isEmpty, "\(problems.map(\.description).joined(separator: "\n"))")
        let loaded = try #require(catalog)
        #expect(loaded.traits.count >= 30)
        #expect(loaded.deviceTypes.count >= 32)
    }

    @Test("every trait the issue names is in the catalog, with its attributes and units")
    func requiredTraits() throws {
        let catalog = try CatalogLoader.load(mappingsDirectory: Paths.mappings)
        let names = [
            "OnOff", "LevelControl", "ColorControl", "Thermostat", "FanControl", "WindowCovering", "DoorLock",
            "BooleanState", "OccupancySensing", "TemperatureMeasurement", "RelativeHumidityMeasurement",
            "IlluminanceMeasurement", "PressureMeasurement", "PowerSource", "BasicInformation",
            "BridgedDeviceBasicInformation", "Switch", "SmokeCoAlarm", "AirQuality", "Identify",
        ]
        for name in names {
            #expect(catalog.trait(.matter(name)) != nil, "matter.\(name)")
        }
        for name in ["WebRtcLiveView", "PushAvStreamTransport", "CameraAvStreamManagement", "DoorbellPress"] {
            #expect(catalog.trait(.google(name)) != nil, "google.\(name)")
        }
        #expect(catalog.traits.keys.contains { if case .vendor = $0.namespace { true } else { false } })
        #expect(
            try catalog.attributeMetadata(.matter("TemperatureMeasurement"), "measuredValue").unit == .celsius100ths)
        #expect(try catalog.attributeMetadata(.matter("ColorControl"), "colorTemperatureMireds").unit == .mireds)
        #expect(
            try catalog.attributeMetadata(.matter("WindowCovering"), "currentPositionLiftPercent100ths").unit
                == .percent100ths)
        #expect(try catalog.attributeMetadata(.matter("RelativeHumidityMeasurement"), "measuredValue").maximum == 10000)
        #expect(try catalog.attributeMetadata(.matter("PowerSource"), "batPercentRemaining").unit == .halfPercent)
        let level = try catalog.attributeMetadata(.matter("LevelControl"), "currentLevel")
        #expect(level.minimum == 1 && level.maximum == 254 && level.unit == .level)
        let rotation = try catalog.attributeMetadata(.google("CameraAvStreamManagement"), "imageRotation")
        #expect(throws: AttributeValidationError.self) { try rotation.validateWrite(.int(90)) }
        try rotation.validateWrite(.int(180))
        let onOff = try #require(catalog.trait(.matter("OnOff")))
        #expect(onOff.commands.map(\.name).starts(with: ["off", "on", "toggle"]))
        #expect(
            catalog.trait(.matter("LevelControl"))?.command(named: "moveToLevel")?.field(named: "level")?.metadata
                .maximum == 254)
    }

    @Test("every device type the issue names exists, and every trait it names is defined")
    func deviceTypes() throws {
        let catalog = try CatalogLoader.load(mappingsDirectory: Paths.mappings)
        let names = [
            "OnOffLight", "DimmableLight", "ColorTemperatureLight", "ExtendedColorLight", "OnOffPlugInUnit",
            "DimmablePlugInUnit", "OnOffLightSwitch", "DimmerSwitch", "GenericSwitch", "ContactSensor",
            "OccupancySensor", "TemperatureSensor", "HumiditySensor", "LightSensor", "PressureSensor",
            "WaterLeakDetector", "SmokeCoAlarm", "AirQualitySensor", "DoorLock", "WindowCovering", "Thermostat",
            "Fan", "AirPurifier", "RoomAirConditioner", "RoboticVacuumCleaner", "Speaker", "BasicVideoPlayer",
            "BridgedNode", "Aggregator",
        ]
        for name in names {
            #expect(catalog.deviceType(.matter(name)) != nil, "matter.\(name)")
        }
        #expect(catalog.deviceType(.google("Camera"))?.homeAPIsID == "home.matter.6006.types.0158")
        #expect(catalog.deviceType(.google("Doorbell"))?.homeAPIsID == "home.matter.6006.types.0113")
        for type in catalog.deviceTypes.values {
            for trait in type.requiredTraits + type.optionalTraits {
                #expect(catalog.trait(trait) != nil, "\(type.id) names \(trait)")
            }
        }
        #expect(
            catalog.deviceType(.matter("DimmableLight"))?.requiredTraits == [
                .matter("Identify"), .matter("OnOff"), .matter("LevelControl"),
            ])
        #expect(catalog.deviceType(matterID: 0x0100)?.id == .matter("OnOffLight"))
        // A device type from the catalog can be instantiated with exactly its required traits.
        for type in catalog.deviceTypes.values {
            #expect(throws: Never.self) {
                try catalog.makeDeviceType(key: "main", type: type.id, isPrimaryType: true, traits: type.requiredTraits)
            }
        }
    }

    @Test("a broken catalog reports each problem with file:line:col and JSON path")
    func brokenCatalog() throws {
        let (_, problems) = CatalogLoader.validate(mappingsDirectory: Paths.fixtures + "/broken-catalog")
        let lines = problems.map { $0.description.replacingOccurrences(of: Paths.fixtures + "/", with: "") }
        let expected = [
            "broken-catalog/catalog/device-types.json:8:36: deviceTypes[0].required[1]: unknown trait 'matter.Identify'; define it in a catalog file or remove it from the device type",
            "broken-catalog/catalog/device-types.json:14:19: deviceTypes[1].matterId: malformed id '0x1OO'; write 1–8 hex digits after 0x, e.g. \"0x0006\"",
            "broken-catalog/catalog/device-types.json:15:36: deviceTypes[1].required[1]: trait 'matter.OnOff' is listed twice",
            "broken-catalog/catalog/traits.json:16:21: traits[1].homeApisId: Home APIs id 'home.matter.0000.clusters.0009' does not match id 0x0008; expected 'home.matter.0000.clusters.0008'",
            "broken-catalog/catalog/traits.json:18:9: traits[1].attributes[0]: minimum 254 is greater than maximum 1",
            "broken-catalog/catalog/traits.json:19:9: traits[1].attributes[1]: default 0 is not accepted: 0 is below the minimum 1; allowed 1…254",
            "broken-catalog/catalog/traits.json:20:19: traits[1].attributes[2].name: name 'CamelCase' must be lowerCamelCase: a–z first, then letters and digits",
            "broken-catalog/catalog/traits.json:21:64: traits[1].attributes[3].unit: unknown unit 'tenths'; allowed: ",
            "broken-catalog/catalog/traits.json:22:40: traits[1].attributes[4].format: unknown format 'bitmapp'; allowed: bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float, string, enum, bitmap, struct, list",
            "broken-catalog/catalog/traits.json:23:70: traits[1].attributes[5].maxx: unknown key 'maxx'; allowed: ",
            "broken-catalog/catalog/traits.json:32:13: traits[3].id: malformed trait id 'On Off'; write matter.Name, google.Name or vendor.<org>.Name",
            "broken-catalog/catalog/traits.json:27:13: traits[2].id: trait 'matter.OnOff' is already defined at ",
        ]
        for prefix in expected {
            #expect(
                lines.contains { $0.hasPrefix(prefix) }, "missing: \(prefix)\nin:\n\(lines.joined(separator: "\n"))")
        }
        #expect(lines.count == expected.count, "\(lines.joined(separator: "\n"))")
        #expect(throws: MappingError.self) {
            try CatalogLoader.load(mappingsDirectory: Paths.fixtures + "/broken-catalog")
        }
    }

    @Test("command rules are catalog data, checked against the catalog: each mistake with file:line:col and path")
    func commandRules() throws {
        let folder = Paths.repository + "/mappings/catalog"
        var files = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasSuffix(".json") && $0 != "command-rules.json"
        }
        .map { (name: $0, bytes: FileManager.default.contents(atPath: folder + "/" + $0).map { [UInt8]($0) }) }
        let (shipped, shippedProblems) = CatalogLoader.validate(mappingsDirectory: Paths.repository + "/mappings")
        #expect(shippedProblems.isEmpty)
        #expect(shipped?.commandRule(.matter("OnOff"), "toggle")?.toggles == "onOff")
        #expect(shipped?.commandRule(.matter("Thermostat"), "setpointRaiseLower")?.unsupportedReason != nil)
        let broken = """
            {"commandRules": [
              {"trait": "matter.OnOff", "command": "on", "set": {"onOff": true}},
              {"trait": "matter.OnOff", "command": "on", "set": {"onOff": true}},
              {"trait": "matter.OnOff", "command": "blink"},
              {"trait": "matter.LevelControl", "command": "moveToLevel", "set": {"brightness": "$level"}},
              {"trait": "matter.LevelControl", "command": "moveWithOnOff", "set": {"currentLevel": "$speed"}, "when": 1}
            ]}
            """
        files.append((name: "rules.json", bytes: Array(broken.utf8)))
        let (catalog, problems) = CatalogLoader.validate(files: files)
        let lines = problems.map(\.description)
        for expected in [
            "rules.json:3:40: commandRules[1].command: matter.OnOff.on has a rule already; keep one",
            "rules.json:4:40: commandRules[2].command: trait matter.OnOff has no command 'blink'",
            "rules.json:5:84: commandRules[3].set.brightness: trait matter.LevelControl has no attribute 'brightness'",
            "rules.json:6:88: commandRules[4].set.currentLevel: command moveWithOnOff has no field 'speed'",
            "rules.json:6:107: commandRules[4].when: unknown key 'when'; allowed: command, set, setInEach, toggle, "
                + "trait, unsupported",
        ] {
            #expect(
                lines.contains { $0.hasPrefix(expected) }, "missing: \(expected)\nin:\n\(lines.joined(separator: "\n"))"
            )
        }
        #expect(problems.count == 5, "\(lines)")
        #expect(catalog?.commandRule(.matter("OnOff"), "on") != nil, "the first rule of a pair is the one kept")
    }

    @Test("malformed JSON in a catalog file is reported with its line and column")
    func malformedJSON() {
        let (_, problems) = CatalogLoader.validate(mappingsDirectory: Paths.fixtures + "/bad-json")
        #expect(problems.count == 1)
        #expect(problems.first?.location == .init(line: 3, column: 70), "\(problems)")
        #expect(problems.first?.message.hasPrefix("invalid JSON") == true)
    }

    @Test("a missing mappings folder is one clear problem")
    func missingFolder() {
        let (catalog, problems) = CatalogLoader.validate(mappingsDirectory: "/nonexistent/mappings")
        #expect(catalog == nil)
        #expect(problems.count == 1)
        #expect(problems.first?.message.contains("pass the mappings folder") == true)
    }

    @Test(
        "a file with thousands of mistakes: the first 200 are located and listed, one more problem says how many were not"
    )
    func manyProblems() {
        let keys = (0..<5_000).map { "\"unknown\($0)\": 1" }.joined(separator: ", ")
        let (_, problems) = CatalogLoader.validate(files: [("many.json", Array("{\(keys)}".utf8))])
        #expect(problems.count == 201)
        #expect(problems.first?.path.description == "unknown0", "\(problems.first.map { "\($0)" } ?? "")")
        #expect(problems.last?.message == "4800 more problems not listed; fix the ones above and validate again")
    }
}
