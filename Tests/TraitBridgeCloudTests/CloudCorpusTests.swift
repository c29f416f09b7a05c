import Foundation
import Testing
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeTesting

/// Every Google file of ../shared/corpus, with the outcome we expect: the devices imported (by
/// TraitBridge id and device type), or the precise problems. A new corpus file fails the
/// completeness test until it has a row here.
@Suite("Cloud-to-cloud corpus", .enabled(if: CloudFixtures.paths.corpus != nil, "../shared/corpus is not present"))
struct CloudCorpusTests {
    let c2c = CloudFixtures.c2c

    struct SyncRow: Sendable, CustomTestStringConvertible {
        var file: String
        /// `c2c-<id>=<device type>` per imported device, in payload order.
        var devices: [String]
        /// A fragment of every expected problem, in order.
        var problems: [String] = []
        var testDescription: String { file }
    }

    static let syncRows: [SyncRow] = [
        .init(file: "aog-java-sync-local-otherdeviceids.json", devices: ["c2c-123=matter.OnOffPlugInUnit"],
              problems: ["payload.devices[0]: missing required field 'willReportState'"]),
        .init(file: "aog-java-sync-outlet-light-acunit.json",
              devices: ["c2c-123=matter.OnOffPlugInUnit", "c2c-456=matter.DimmableLight", "c2c-789=google.AcUnit"],
              problems: ["payload.devices[0]: missing required field 'willReportState'", "payload.devices[1]: missing required field 'willReportState'"]),
        .init(file: "aog-nodejs-sync-legacy-colortemp-spectrum.json",
              devices: ["c2c-123=matter.OnOffPlugInUnit", "c2c-456=matter.DimmableLight", "c2c-789=matter.ExtendedColorLight"],
              problems: [
                  "payload.devices[1].traits[2]: unknown trait 'action.devices.traits.ColorTemperature' (deprecated",
                  "payload.devices[1].traits[3]: unknown trait 'action.devices.traits.ColorSpectrum' (deprecated",
                  "payload.devices[1].attributes.temperatureMinK: belongs to no declared trait",
                  "payload.devices[1].attributes.temperatureMaxK: belongs to no declared trait",
              ]),
        .init(file: "google-docs-blinds-topdown.json", devices: ["c2c-123=matter.WindowCovering"]),
        .init(file: "google-docs-camera.json", devices: ["c2c-123=google.CloudCamera"],
              problems: ["payload.devices[0].attributes.cameraStreamNeedDrmEncryption: belongs to no declared trait (declared: CameraStream)"]),
        .init(file: "google-docs-light.json", devices: ["c2c-123=matter.ColorTemperatureLight"]),
        .init(file: "google-docs-lock.json", devices: ["c2c-123=matter.DoorLock"]),
        .init(file: "google-docs-matter-dedup.repaired.json", devices: ["c2c-456=matter.DimmableLight"],
              problems: ["payload.devices[0]: missing required field 'name'; named after its id '456'"]),
        .init(file: "google-docs-thermostat.json", devices: ["c2c-123=matter.Thermostat"]),
        .init(file: "homeassistant-demo-devices-array-22.json", devices: Array(repeating: "*", count: 22)),
        .init(file: "homeassistant-sync-cover-blinds.json", devices: ["c2c-cover.demo_sensor=matter.WindowCovering"]),
        .init(file: "homeassistant-sync-door-sensor-queryonly.json", devices: ["c2c-binary_sensor.demo_sensor=matter.ContactSensor"]),
        .init(file: "homeassistant-sync-light-deviceinfo-area.json", devices: ["c2c-light.demo_light=matter.ExtendedColorLight"]),
        .init(file: "homeassistant-sync-light-modes-effects.json", devices: ["c2c-light.demo_light=matter.ExtendedColorLight"]),
        .init(file: "homeassistant-sync-payload-local-sdk.json",
              devices: ["c2c-light.test=matter.ExtendedColorLight", "c2c-climate.ecobee=matter.Thermostat", "c2c-fan.living_room_fan=matter.Fan", "c2c-light.ceiling_lights=matter.ExtendedColorLight"]),
        .init(file: "houseflow-rs-sync-outlet-light.json", devices: ["c2c-123=matter.OnOffPlugInUnit", "c2c-456=matter.ExtendedColorLight"]),
        .init(file: "openhab-sync-payload-fan.json", devices: ["c2c-myfan=matter.Fan"]),
        .init(file: "openhab-sync-payload-lights.json", devices: Array(repeating: "*", count: 6)),
        .init(file: "openhab-sync-payload-scene.json", devices: ["c2c-myscene=google.Scene"]),
        .init(file: "openhab-sync-payload-sensorstate-airquality.json", devices: ["c2c-mysensor=matter.AirQualitySensor"],
              problems: ["devices[0].attributes.sensorStatesSupported: a single object where a list is expected"]),
        .init(file: "openhab-sync-payload-temperature-sensor.json", devices: ["c2c-mysensor=matter.TemperatureSensor"]),
        .init(file: "openhab-sync-payload-thermostat-string-modes.json", devices: ["c2c-mythermostat=matter.Thermostat"]),
    ]

    @Test("SYNC files import as expected", arguments: syncRows)
    func syncFile(_ row: SyncRow) throws {
        let bytes = try #require(CloudFixtures.corpus("google-sync/" + row.file))
        let result = try c2c.importSync(bytes, source: row.file, now: CloudFixtures.now)
        let got = result.devices.map { "\($0.device.id)=\($0.device.deviceTypes[0].typeID)" }
        #expect(got.count == row.devices.count)
        for (expected, actual) in zip(row.devices, got) where expected != "*" { #expect(actual == expected) }
        #expect(result.problems.count == row.problems.count, "\(result.problems)")
        for (fragment, problem) in zip(row.problems, result.problems) {
            #expect(problem.description.contains(fragment), "\(problem) should contain \(fragment)")
        }
    }

    @Test("Google's published Matter-dedup sample is refused with the line and column of its first error")
    func malformedDedupSample() throws {
        let bytes = try #require(CloudFixtures.corpus("google-sync/google-docs-matter-dedup.MALFORMED.txt"))
        #expect(throws: CloudError.notJSON(source: "dedup.txt", line: 13, column: 9, reason: "unexpected character")) {
            try c2c.importSync(bytes, source: "dedup.txt", now: CloudFixtures.now)
        }
    }

    /// QUERY responses, EXECUTE responses and the Report State body: `id:online:status:errorCode`.
    static let reportRows: [(file: String, reports: [String], problems: Int)] = [
        ("google-query/aog-java-query-response.json", ["456:true:-:-", "123:true:-:-"], 0),
        ("google-query/aog-nodejs-query-response.json", ["123:true:-:-", "456:true:-:-"], 0),
        ("google-query/aog-nodejs-report-state-washer.json", ["washer:-:-:-"], 1),
        ("google-query/google-docs-lock-query.json", ["123:true:SUCCESS:-"], 0),
        ("google-query/homeassistant-query-lights-spectrumhsv.json",
         ["light.non_existing:false:-:-", "light.demo_light:true:-:-", "light.another_light:true:-:-", "light.color_temp_light:true:-:-"], 0),
        ("google-query/houseflow-rs-query-response.json", ["123:true:SUCCESS:-", "456:true:SUCCESS:-"], 0),
        ("google-execute/aog-java-execute-2fa-response.json", ["123:true:SUCCESS:-", "456:-:ERROR:challengeNeeded"], 0),
        ("google-execute/aog-java-execute-response.json", ["123:true:SUCCESS:-", "456:-:ERROR:deviceTurnedOff"], 0),
        ("google-execute/aog-nodejs-execute-response-2fa-ack-with-states.json", ["123:-:ERROR:challengeNeeded"], 0),
        ("google-execute/aog-nodejs-execute-response-2fa-pin-fail.json", ["123:-:ERROR:challengeNeeded"], 0),
        ("google-execute/homeassistant-execute-response-camerastream.json", ["camera.office:true:SUCCESS:-"], 0),
        ("google-execute/homeassistant-execute-response-offline-and-states.json",
         ["light.non_existing:-:ERROR:deviceOffline", "light.ceiling_lights:true:SUCCESS:-", "light.kitchen_lights:true:SUCCESS:-"], 0),
        ("google-execute/houseflow-rs-execute-response.json", ["123:true:SUCCESS:-", "456:-:ERROR:deviceTurnedOff"], 0),
    ]

    @Test("QUERY and EXECUTE responses and Report State read as expected", arguments: reportRows.map(\.file))
    func reportFile(_ file: String) throws {
        let row = try #require(Self.reportRows.first { $0.file == file })
        let bytes = try #require(CloudFixtures.corpus(file))
        let result = try c2c.importReports(bytes, source: file)
        let got = result.reports.map { "\($0.c2cID):\($0.online.map(String.init) ?? "-"):\($0.status ?? "-"):\($0.errorCode ?? "-")" }
        #expect(got == row.reports)
        #expect(result.problems.count == row.problems, "\(result.problems)")
    }

    static let requestRows: [(file: String, groups: [String])] = [
        ("google-query/aog-java-query-customdata-request.json", ["query:123,456"]),
        ("google-query/aog-java-query-request.json", ["query:123,456"]),
        ("google-execute/aog-java-execute-2fa-request.json", ["123,456:OnOff,OnOff"]),
        ("google-execute/aog-java-execute-request.json", ["123,456:OnOff"]),
        ("google-execute/houseflow-rs-execute-request.json", ["123,456:OnOff,ColorAbsolute"]),
    ]

    @Test("QUERY and EXECUTE requests read as expected", arguments: requestRows.map(\.file))
    func requestFile(_ file: String) throws {
        let row = try #require(Self.requestRows.first { $0.file == file })
        let bytes = try #require(CloudFixtures.corpus(file))
        if file.contains("query") {
            let request = try c2c.parseQueryRequest(bytes, source: file)
            #expect(["query:" + request.ids.joined(separator: ",")] == row.groups)
        } else {
            let request = try c2c.parseExecuteRequest(bytes, source: file)
            #expect(request.problems.isEmpty)
            #expect(request.groups.map { $0.deviceIDs.joined(separator: ",") + ":" + $0.executions.map(\.command).joined(separator: ",") } == row.groups)
        }
    }

    @Test("every Google file of the corpus has a row")
    func completeness() throws {
        let corpus = try #require(CloudFixtures.paths.corpus)
        var listed = Set(Self.syncRows.map { "google-sync/" + $0.file } + Self.reportRows.map(\.file) + Self.requestRows.map(\.file))
        listed.insert("google-sync/google-docs-matter-dedup.MALFORMED.txt")
        for folder in ["google-sync", "google-query", "google-execute"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: corpus + "/" + folder) {
                #expect(listed.contains(folder + "/" + name), "no expected outcome for \(folder)/\(name)")
            }
        }
    }
}
