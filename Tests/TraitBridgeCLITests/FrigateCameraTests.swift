import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// A Frigate camera end to end on real parts: mosquitto on loopback, `traitbridge serve` with a
/// `frigate` section, `traitbridge simulate` speaking Frigate's MQTT contract (stats, states,
/// `…/set` answered, a person seen), and the CLI.
@Suite("Frigate camera end to end", .serialized)
struct FrigateCameraTests {
    static let scenario = #"""
        {"devices": [{"name": "Front door camera", "protocol": "frigate", "id": "front_door"}],
         "faults": [{"afterSeconds": 5, "fault": "motion", "device": "Front door camera"}]}
        """#

    @Test(
        "seen, told of a person, recording off and sensitivity high confirmed, silent unrecorded, 0 fps offline"
    )
    func camera() throws {
        let broker = try MosquittoBroker()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-frigate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config.json").path
        try Data(#"{"frigate": {"maxEventSeconds": 120}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let scenario = folder.appendingPathComponent("home.json").path
        try Data(Self.scenario.utf8).write(to: URL(fileURLWithPath: scenario))
        let observer = try TestMQTTClient(
            broker, subscribe: ["traitbridge/devices/frigate-front_door/#", "frigate/front_door/+/state"])
        let serve = try BridgeProcess(
            [
                "serve", "--broker", broker.url, "--config", config, "--data-dir",
                folder.appendingPathComponent("data").path, "--mappings", CommandRunner.repository + "/mappings",
                "--log-level", "warning",
            ], log: folder.appendingPathComponent("serve.log").path)
        defer { serve.stop() }
        let simulator = try BridgeProcess([
            "simulate", "--scenario", scenario, "--broker", broker.url, "--duration",
            "60",
        ])
        defer { simulator.stop() }
        let state = "traitbridge/devices/frigate-front_door/state"
        let online = observer.waitFor(state) { $0.payloadText.contains(#""connectivityState":"online""#) }
        #expect(online != nil, "the camera is online from Frigate's stats")

        // The simulator's person at the door (5 s after its start): motion and the tracked object, notified.
        let events = "traitbridge/devices/frigate-front_door/event"
        for (kind, type) in [("motion", "start"), ("object", "new"), ("review", "new"), ("object", "end")] {
            let field = kind == "motion" ? "state" : "type"
            let note = observer.waitFor(events, timeout: .seconds(15)) {
                $0.payloadText.contains(#""kind":"\#(kind)""#) && $0.payloadText.contains(#""\#(field)":"\#(type)""#)
            }
            #expect(note != nil, "a \(kind) \(type) notification")
            #expect(note?.payloadText.contains(#""source":"frigate""#) == true, "\(note?.payloadText ?? "")")
        }
        #expect(
            observer.waitFor(events) { $0.payloadText.contains(#""label":"person""#) } != nil, "the object is a person")

        // Recording off: the command goes out as recordings/set OFF; Frigate's state answer confirms it.
        let off = try CommandRunner.run([
            "command", "Front door", "google.PushAvStreamTransport.setTransportStatus", "transportStatus=1",
            "--broker", broker.url,
        ])
        #expect(off.exitCode == 0, "\(off.standardOutput) \(off.standardError)")
        #expect(off.standardOutput.contains("confirmed"), "\(off.standardOutput)")
        #expect(observer.waitFor("frigate/front_door/recordings/state") { $0.payloadText == "OFF" } != nil)

        // Wake-up sensitivity high: threshold 20, contour area 5 on Frigate; confirmed likewise.
        let options =
            #"{"streamUsage":0,"triggerOptions":{"triggerType":1,"motionSensitivity":10,"#
            + #""motionTimeControl":{"initialDuration":1,"augmentationDuration":0,"maxDuration":120,"#
            + #""blindDuration":0}}}"#
        let high = try CommandRunner.run([
            "command", "Front door", "google.PushAvStreamTransport.modifyPushTransport", "connectionId=1",
            "transportOptions=\(options)", "--broker", broker.url,
        ])
        #expect(
            high.exitCode == 0 && high.standardOutput.contains("confirmed"),
            "\(high.standardOutput) \(high.standardError)")
        #expect(observer.waitFor("frigate/front_door/motion_threshold/state") { $0.payloadText == "20" } != nil)
        #expect(observer.waitFor("frigate/front_door/motion_contour_area/state") { $0.payloadText == "5" } != nil)

        // Refused with the reason: a sensitivity the contract does not have, an event length Frigate sets itself.
        let three = try CommandRunner.run([
            "command", "Front door", "google.PushAvStreamTransport.modifyPushTransport", "connectionId=1",
            "transportOptions="
                + options.replacingOccurrences(of: #""motionSensitivity":10"#, with: #""motionSensitivity":3"#),
            "--broker", broker.url,
        ])
        #expect(three.exitCode == 1)
        #expect((three.standardOutput + three.standardError).contains("1 (low), 5 (medium) or 10 (high)"), "\(three)")
        let longer = try CommandRunner.run([
            "command", "Front door", "google.PushAvStreamTransport.modifyPushTransport", "connectionId=1",
            "transportOptions=\(options.replacingOccurrences(of: #""maxDuration":120"#, with: #""maxDuration":60"#))",
            "--broker", broker.url,
        ])
        #expect(longer.exitCode == 1)
        #expect((longer.standardOutput + longer.standardError).contains("maxEventSeconds"), "\(longer)")

        // With recording off, what Frigate reports is no event; motion still reads as occupancy.
        let frigate = try TestMQTTClient(broker)
        let new =
            #"{"type":"new","after":{"id":"while-off","camera":"front_door","label":"car","top_score":0.9,"#
            + #""false_positive":false,"start_time":1.0,"end_time":null,"entered_zones":[]}}"#
        try frigate.publish("frigate/events", new)
        try frigate.publish("frigate/front_door/motion", "ON")
        #expect(observer.waitFor(state) { $0.payloadText.contains(#""occupancy":1"#) } != nil)
        #expect(observer.waitFor(events, timeout: .seconds(1)) { $0.payloadText.contains("while-off") } == nil)
        #expect(observer.waitFor(state) { $0.payloadText.contains(#""connectivityState":"online""#) } != nil)

        // Frigate's stats say the camera gets no frames: offline, with that reason; the rest of Frigate is fine.
        try frigate.publish(
            "frigate/stats", #"{"cameras":{"front_door":{"camera_fps":0.0,"process_fps":0.0}},"service":{"uptime":9}}"#)
        let offline = observer.waitFor(state) { $0.payloadText.contains(#""connectivityState":"offline""#) }
        #expect(offline?.payloadText.contains("front_door camera_fps 0") == true, "\(offline?.payloadText ?? "")")
        let status = try CommandRunner.run(["status", "--broker", broker.url, "Front door"])
        #expect(status.standardOutput.contains("camera_fps 0"), "\(status.standardOutput)")
    }
}
