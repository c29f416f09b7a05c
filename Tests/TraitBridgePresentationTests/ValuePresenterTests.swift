import Foundation
import Testing
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

/// The shipped table, read as the bridge reads it (checked against the catalog).
enum Shipped {
    static let mappings: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("mappings").path
    }()
    static let catalog = try! CatalogLoader.load(mappingsDirectory: mappings)
    static let presenter = ValuePresenter(
        table: try! PresentationTable.load(mappingsDirectory: mappings, catalog: catalog))

    /// The catalog's metadata of `trait.attribute`.
    static func metadata(_ key: String) -> AttributeMetadata {
        let dot = key.lastIndex(of: ".")!
        let trait = catalog.trait(TraitID(parsing: String(key[..<dot]))!)!
        return trait.attribute(named: String(key[key.index(after: dot)...]))!.metadata
    }
}

@Suite("A value in a person's words")
struct ValuePresenterTests {
    let presenter = Shipped.presenter

    @Test(
        "Each shown as a person reads it, from the catalog's metadata and the table",
        arguments: [
            ("matter.TemperatureMeasurement.measuredValue", AttributeValue.int(2220), "22.2 °C"),
            ("matter.TemperatureMeasurement.measuredValue", .int(2200), "22 °C"),
            ("matter.TemperatureMeasurement.measuredValue", .int(-550), "-5.5 °C"),
            ("matter.TemperatureMeasurement.measuredValue", .null, "–"),
            ("matter.Thermostat.localTemperature", .int(1950), "19.5 °C"),
            ("matter.Thermostat.localTemperatureCalibration", .int(-3), "-0.3 °C"),
            ("matter.ElectricalPowerMeasurement.activePower", .int(39500), "39.5 W"),
            ("matter.ElectricalPowerMeasurement.voltage", .int(230_400), "230.4 V"),
            ("matter.RelativeHumidityMeasurement.measuredValue", .int(4523), "45 %"),
            ("matter.OnOff.onOff", .bool(true), "on"),
            ("matter.OnOff.onOff", .bool(false), "off"),
            ("matter.DoorLock.lockState", .int(1), "locked"),
            ("matter.DoorLock.lockState", .int(0), "not fully locked"),
            ("matter.WindowCovering.currentPositionLiftPercent100ths", .int(6000), "40 % open"),
            ("matter.WindowCovering.currentPositionLiftPercent100ths", .int(0), "100 % open"),
            ("matter.LevelControl.currentLevel", .int(254), "100 %"),
            ("matter.LevelControl.currentLevel", .int(127), "50 %"),
            ("matter.ColorControl.colorTemperatureMireds", .int(250), "4000 K"),
            ("matter.IlluminanceMeasurement.measuredValue", .int(20001), "100 lx"),
            ("matter.PowerSource.batPercentRemaining", .int(150), "75 %"),
            ("matter.BooleanState.stateValue", .bool(false), "open"),
            ("matter.OccupancySensing.occupancy", .int(1), "occupied"),
            ("matter.Thermostat.systemMode", .int(4), "heat"),
            ("matter.WindowCovering.type", .int(0), "roller shade"),
            ("matter.ElectricalPowerMeasurement.powerMode", .int(2), "AC"),
            ("matter.DoorLock.actuatorEnabled", .bool(true), "yes"),
        ])
    func shown(key: String, value: AttributeValue, expected: String) {
        #expect(presenter.text(value, of: key, metadata: Shipped.metadata(key)) == expected)
    }

    @Test("Without metadata or a unit the table knows, the value as it is, with its unit")
    func unknownUnits() {
        #expect(presenter.text(.int(12), of: "vendor.x.Y.count", metadata: nil) == "12")
        #expect(presenter.text(.string("a\nb"), of: "vendor.x.Y.text", metadata: nil) == "a b")
        let long = String(repeating: "x", count: 200)
        #expect(presenter.text(.string(long), of: "vendor.x.Y.text", metadata: nil).count == 80)
        let epoch = AttributeMetadata(format: .uint32, unit: .matterEpochSeconds)
        #expect(presenter.text(.int(5), of: "vendor.x.Y.at", metadata: epoch) == "5 s since 2000-01-01")
        #expect(presenter.text(.double(1.5), of: "vendor.x.Y.f", metadata: AttributeMetadata(format: .float)) == "1.5")
        #expect(presenter.text(.double(1.5), of: "vendor.x.Y.f", metadata: nil) == "1.5")
        #expect(presenter.text(.double(0.125), of: "vendor.x.Y.f", metadata: nil) == "0.13")
    }

    @Test("Names: the table's, else the identifier in words")
    func names() {
        #expect(presenter.name(of: "matter.LevelControl.currentLevel") == "Brightness")
        #expect(presenter.name(of: "matter.Thermostat.unoccupiedHeatingSetpoint") == "Unoccupied heating setpoint")
        #expect(presenter.traitName("matter.DoorLock") == "Lock")
        #expect(presenter.traitName("matter.CameraAvStreamManagement") == "Camera av stream management")
        #expect(presenter.traitName("google.WebRtcLiveView") == "Web rtc live view")
    }

    @Test(
        "Input in a person's form becomes the model's value",
        arguments: [
            ("matter.Thermostat.occupiedHeatingSetpoint", "21.5°C", AttributeValue.int(2150)),
            ("matter.Thermostat.occupiedHeatingSetpoint", "21.5 °C", .int(2150)),
            ("matter.Thermostat.occupiedHeatingSetpoint", "-2 °c", .int(-200)),
            ("matter.OnOff.onOff", "on", .bool(true)),
            ("matter.OnOff.onOff", "OFF", .bool(false)),
            ("matter.Thermostat.systemMode", "heat", .int(4)),
            ("matter.Thermostat.systemMode", "Heat", .int(4)),
            ("matter.DoorLock.lockState", "not fully locked", .int(0)),
            ("matter.DoorLock.lockState", "NotFullyLocked", .int(0)),
            ("matter.WindowCovering.targetPositionLiftPercent100ths", "40 % open", .int(6000)),
            ("matter.WindowCovering.targetPositionLiftPercent100ths", "40%open", .int(6000)),
            ("matter.LevelControl.currentLevel", "50%", .int(127)),
            ("matter.ColorControl.colorTemperatureMireds", "4000K", .int(250)),
        ])
    func read(key: String, input: String, expected: AttributeValue) throws {
        #expect(try presenter.read(input, of: key, metadata: Shipped.metadata(key)) == expected)
    }

    @Test("Input that is no person's form is left to the model's own reading")
    func notAPersonsForm() throws {
        let setpoint = Shipped.metadata("matter.Thermostat.occupiedHeatingSetpoint")
        for input in ["2150", "", "21.5 °F", "nan°C", "inf °C", "1e400°C", "°C", "warm"] {
            #expect(
                try presenter.read(input, of: "matter.Thermostat.occupiedHeatingSetpoint", metadata: setpoint) == nil)
        }
        #expect(try presenter.read("on", of: "vendor.x.Y.z", metadata: nil) == nil)
    }

    @Test("A number beyond what its unit's conversion reaches is refused, not clamped")
    func beyondTheConversion() throws {
        let level = Shipped.metadata("matter.LevelControl.currentLevel")
        #expect(throws: InputRefusal.self) {
            try presenter.read("120 %", of: "matter.LevelControl.currentLevel", metadata: level)
        }
        do throws(InputRefusal) {
            _ = try presenter.read(
                "-5 % open", of: "matter.WindowCovering.targetPositionLiftPercent100ths",
                metadata: Shipped.metadata("matter.WindowCovering.targetPositionLiftPercent100ths"))
            Issue.record("-5 % open was read")
        } catch {
            #expect(error.message == "-5 % open is not allowed for Target position; allowed: 0…100 % open")
        }
        #expect(
            try presenter.read(
                "3999 K", of: "matter.ColorControl.colorTemperatureMireds",
                metadata: Shipped.metadata("matter.ColorControl.colorTemperatureMireds")) == .int(250))
        #expect(try presenter.read("0 %", of: "matter.LevelControl.currentLevel", metadata: level) == .int(1))
    }

    @Test("A refusal gives the allowed range once, in the person's unit")
    func refusal() {
        var setpoint = Shipped.metadata("matter.Thermostat.occupiedHeatingSetpoint")
        setpoint.minimum = 700
        setpoint.maximum = 3000
        let key = "matter.Thermostat.occupiedHeatingSetpoint"
        #expect(
            presenter.refusal(.int(3500), of: key, metadata: setpoint)
                == "35 °C is not allowed for Heating to; allowed: 7…30 °C")
        #expect(presenter.refusal(.int(2100), of: key, metadata: setpoint) == nil)
        let level = Shipped.metadata("matter.LevelControl.currentLevel")
        #expect(presenter.allowed(of: "matter.LevelControl.currentLevel", metadata: level) == "0…100 %")
        let position = Shipped.metadata("matter.WindowCovering.targetPositionLiftPercent100ths")
        #expect(
            presenter.allowed(of: "matter.WindowCovering.targetPositionLiftPercent100ths", metadata: position)
                == "0…100 % open")
        let mode = Shipped.metadata("matter.Thermostat.systemMode")
        #expect(
            presenter.allowed(of: "matter.Thermostat.systemMode", metadata: mode)?.hasPrefix("off, auto, cool") == true)
        #expect(presenter.allowed(of: "x.y.z", metadata: AttributeMetadata(format: .uint8, minimum: 0)) == "≥ 0")
    }

    @Test("A card shows the attributes of its device types, then every device's, each once")
    func cards() {
        let keys = presenter.cardKeys(deviceTypes: ["matter.ColorTemperatureLight", "matter.DimmableLight"])
        #expect(
            keys == [
                "matter.OnOff.onOff", "matter.LevelControl.currentLevel", "matter.ColorControl.colorTemperatureMireds",
                "matter.PowerSource.batPercentRemaining",
            ])
        #expect(presenter.cardKeys(deviceTypes: ["vendor.x.Unknown"]) == ["matter.PowerSource.batPercentRemaining"])
    }
}
