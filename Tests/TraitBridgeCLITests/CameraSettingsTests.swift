import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// A camera's settings end to end: the camera from Frigate, its settings from cam2mqtt (a Reolink
/// camera's night vision and volume) through the shipped example mapping, joined into the camera's
/// own device type; `traitbridge simulate` speaks both contracts; `camera set` round-trips.
@Suite("Camera settings end to end", .serialized)
struct CameraSettingsTests {
    static let scenario = #"""
        {"devices": [{"name": "Front door camera", "protocol": "frigate", "id": "front_door"},
                     {"name": "Front door settings", "protocol": "cam2mqtt", "id": "front_door"}]}
        """#

    @Test("settings join the camera; nightVision and volume round-trip; out of range or unsupported refused")
    func settings() throws {
        let broker = try MosquittoBroker()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-camset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The shipped mappings, plus the example settings mapping as a user would copy it.
        let mappings = folder.appendingPathComponent("mappings")
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: CommandRunner.repository + "/mappings"), to: mappings)
        try FileManager.default.createDirectory(
            at: mappings.appendingPathComponent("generic"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: CommandRunner.repository + "/examples/generic-camera-settings.json"),
            to: mappings.appendingPathComponent("generic/camera-settings.json"))
        let config = folder.appendingPathComponent("config.json").path
        try Data(#"{"frigate": {}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let scenario = folder.appendingPathComponent("home.json").path
        try Data(Self.scenario.utf8).write(to: URL(fileURLWithPath: scenario))
        let observer = try TestMQTTClient(
            broker, subscribe: ["traitbridge/devices/frigate-front_door/state", "cam2mqtt/camera/front_door/#"])
        let arguments = [
            "serve", "--broker", broker.url, "--config", config, "--data-dir",
            folder.appendingPathComponent("data").path, "--mappings", mappings.path, "--log-level", "info",
        ]
        var serve = try BridgeProcess(arguments, log: folder.appendingPathComponent("serve.log").path)
        defer { serve.stop() }
        let simulator = try BridgeProcess([
            "simulate", "--scenario", scenario, "--broker", broker.url, "--duration",
            "60",
        ])
        defer { simulator.stop() }
        let state = "traitbridge/devices/frigate-front_door/state"
        let joined = observer.waitFor(state) {
            $0.payloadText.contains(#""nightVision":2"#) && $0.payloadText.contains(#""speakerVolumeLevel":127"#)
        }
        let seen = observer.waitFor(state, timeout: .seconds(1))?.payloadText ?? "-"
        #expect(joined != nil, "cam2mqtt's auto and 50 % on the camera: \(seen)")
        let show = try CommandRunner.run(["show", "Front door", "--broker", broker.url])
        #expect(show.standardOutput.contains("google.CameraAvStreamManagement"), "\(show.standardOutput)")
        #expect(
            !show.standardOutput.contains("generic_camera"), "one device type, not a second: \(show.standardOutput)")

        // Night vision on and the volume at 100 %: sent as cam2mqtt's words, confirmed by its state.
        let set = try CommandRunner.run([
            "camera", "set", "Front door", "nightVision=on", "speakerVolumeLevel=254", "--broker", broker.url,
        ])
        #expect(
            set.exitCode == 0 && set.standardOutput.contains("confirmed"), "\(set.standardOutput) \(set.standardError)")
        #expect(
            observer.waitFor("cam2mqtt/camera/front_door/state/reolink/nightvision") { $0.payloadText == "on" } != nil)
        #expect(
            observer.waitFor("cam2mqtt/camera/front_door/state/reolink/audio/volume") { $0.payloadText == "100" } != nil
        )

        // After a restart (from the registry, then the sources again): still one type, the settings in it.
        serve.stop()
        for topic in ["traitbridge/devices/frigate-front_door", state] {  // what show reads comes from serve2
            try observer.publish(topic, "", retain: true)
        }
        serve = try BridgeProcess(arguments, log: folder.appendingPathComponent("serve2.log").path)
        #expect(
            eventually(timeout: .seconds(15)) {
                let again =
                    (try? CommandRunner.run(["show", "Front door", "--broker", broker.url]))?.standardOutput ?? ""
                return again.contains("nightVision = 1") && again.contains("speakerVolumeLevel = 254")
                    && !again.contains("generic_camera")
            }, "\(LogFile.read(folder.appendingPathComponent("serve2.log").path).suffix(2000))")

        // Refused by the metadata, before anything is sent: a rotation Google's cameras do not take,
        // a volume past the format, a night vision that is no label.
        for (setting, reason) in [
            ("imageRotation=90", "imageRotation"), ("speakerVolumeLevel=300", "speakerVolumeLevel"),
            ("nightVision=dim", "nightVision"),
        ] {
            let refused = try CommandRunner.run(["camera", "set", "Front door", setting, "--broker", broker.url])
            #expect(refused.exitCode == 1, "\(setting): \(refused.standardOutput)")
            #expect(refused.standardError.contains(reason), "\(setting): \(refused.standardError)")
        }

        // A setting no source of this camera carries (cam2mqtt has no rotation): refused, nothing sent.
        let rotation = try CommandRunner.run([
            "camera", "set", "Front door", "imageRotation=180", "--broker", broker.url,
        ])
        #expect(rotation.exitCode == 1, "\(rotation.standardOutput)")
        #expect(rotation.standardError.contains("notSupported"), "\(rotation.standardError)")

        // The settings' source goes offline: only its traits say so; live view and recording stay Frigate's.
        try observer.publish("cam2mqtt/camera/front_door/status", "offline", retain: true)
        let partial = observer.waitFor(state) { $0.payloadText.contains(#""connectivityState":"partiallyOnline""#) }
        #expect(partial != nil, "\(observer.waitFor(state, timeout: .milliseconds(10))?.payloadText ?? "none")")
    }
}
