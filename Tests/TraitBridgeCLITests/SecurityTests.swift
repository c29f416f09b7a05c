import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// The shipped ACL example (`examples/mosquitto.acl`) on a real mosquitto that enforces it, with
/// `serve` and the CLI logging in as its roles: the broker refuses what a role may not do, and no
/// password shows in any output.
@Suite("Security: the ACL example and credentials", .serialized)
struct SecurityTests {
    static let passwords = [
        "traitbridge": "bridge-s3cret-1", "viewer": "viewer-s3cret-2", "operator": "operator-s3cret-3",
        "admin": "admin-s3cret-4", "zigbee2mqtt": "z2m-s3cret-5",
    ]
    static let devices =
        #"[{"ieee_address":"0x00158d0001000001","type":"Router","friendly_name":"Hall light","#
            + #""definition":{"exposes":[{"type":"light","features":[{"type":"binary","name":"state","#
            + #""property":"state","access":7,"value_on":"ON","value_off":"OFF"}]}]}}]"#

    func client(_ broker: MosquittoBroker, _ user: String, subscribe: [String] = []) throws -> TestMQTTClient {
        try TestMQTTClient(
            MosquittoBroker.connection(to: broker, user: user, password: Self.passwords[user]!), subscribe: subscribe,
            clientID: "test-\(user)-\(UUID().uuidString.prefix(8))")
    }

    /// A mosquitto enforcing the ACL example with a password per role, and `serve` logging in as
    /// the bridge (at debug, to show no password is logged); the folder holds the password files.
    static func securedBridge(_ name: String) throws -> (MosquittoBroker, String, BridgeProcess) {
        let broker = try MosquittoBroker(
            .init(users: Self.passwords, aclFile: CommandRunner.repository + "/examples/mosquitto.acl"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (user, password) in Self.passwords {
            try (password + "\n").write(toFile: "\(folder)/\(user).pw", atomically: true, encoding: .utf8)
        }
        let config =
            #"{"broker": "mqtt://traitbridge@127.0.0.1:\#(broker.port)","#
            + #" "passwordFile": "\#(folder)/traitbridge.pw", "dataDir": "\#(folder)/data","#
            + #" "mappings": "\#(CommandRunner.repository)/mappings", "logLevel": "debug"}"#
        try config.write(toFile: folder + "/serve.json", atomically: true, encoding: .utf8)
        let serve = try BridgeProcess(
            ["serve", "--config", folder + "/serve.json"], log: folder + "/serve.log")
        return (broker, folder, serve)
    }

    @Test(
        "read-only, control and admin roles: the broker refuses a viewer's command and fake state; the bridge's view is unchanged"
    )
    func roles() throws {
        let (broker, folder, serve) = try Self.securedBridge("tb-security")
        defer {
            serve.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }

        let z2m = try client(broker, "zigbee2mqtt", subscribe: ["zigbee2mqtt/#"])
        let admin = try client(broker, "admin", subscribe: ["traitbridge/#"])
        #expect(admin.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil)
        try z2m.publish("zigbee2mqtt/bridge/state", #"{"state":"online"}"#, retain: true)
        try z2m.publish("zigbee2mqtt/bridge/devices", Self.devices, retain: true)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF"}"#)
        let id = "z2m-0x00158d0001000001"
        #expect(admin.waitFor("traitbridge/devices/\(id)/state") { $0.payloadText.contains(#""onOff":false"#) } != nil)

        // The viewer reads: `status` logs in with --username and --password-file.
        let status = try CommandRunner.run([
            "status", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--username", "viewer",
            "--password-file", "\(folder)/viewer.pw",
        ])
        #expect(status.exitCode == 0, "\(status.standardError)")
        #expect(status.standardOutput.contains("Hall light"))
        // …and a device's history (the request the ACL lets a viewer make).
        let history = try CommandRunner.run([
            "history", "Hall light", "--json", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--username", "viewer",
            "--password-file", "\(folder)/viewer.pw",
        ])
        #expect(history.exitCode == 0 && history.standardOutput.contains(#""onOff""#), "\(history.standardError)")

        // The viewer may not command, request or publish device state: the broker drops all of it.
        let viewer = try client(broker, "viewer")
        try viewer.publish("traitbridge/devices/\(id)/set", #"{"id":"v1","trait":"matter.OnOff","command":"on"}"#)
        try viewer.publish("traitbridge/bridge/request/rename/v2", #"{"device":"\#(id)","name":"Hacked"}"#)
        try viewer.publish("traitbridge/devices/\(id)/state", #"{"name":"Fake"}"#, retain: true)
        // The operator may command (a marker that the broker has handled the viewer's messages).
        let operatorClient = try client(broker, "operator", subscribe: ["traitbridge/devices/+/set/result"])
        try operatorClient.publish(
            "traitbridge/devices/\(id)/set", #"{"id":"o1","trait":"matter.OnOff","command":"on"}"#)
        #expect(
            z2m.waitFor("zigbee2mqtt/Hall light/set") { $0.payloadText.contains("ON") } != nil,
            "the operator's command reaches the device")
        #expect(
            operatorClient.waitFor("traitbridge/devices/\(id)/set/result") != nil, "and the operator reads its result")
        // The operator may not rename (an admin's request).
        try operatorClient.publish("traitbridge/bridge/request/rename/o2", #"{"device":"\#(id)","name":"Hacked"}"#)
        try admin.publish("traitbridge/bridge/request/rename/a1", #"{"device":"\#(id)","name":"Porch light"}"#)
        #expect(admin.waitFor("traitbridge/bridge/response/rename/a1") != nil, "the admin's request is answered")

        #expect(
            z2m.messages.all.filter { $0.topic == "zigbee2mqtt/Hall light/set" }.count == 1,
            "only the operator's command went out")
        #expect(
            !admin.messages.all.contains {
                $0.topic.hasSuffix("/response/rename/v2") || $0.topic.hasSuffix("/response/rename/o2")
            })
        #expect(!admin.messages.all.contains { $0.payloadText.contains("Fake") || $0.payloadText.contains("Hacked") })
        #expect(
            admin.waitFor("traitbridge/devices/\(id)/state") { $0.payloadText.contains(#""name":"Porch light""#) }
                != nil)
        #expect(serve.isRunning)

        // The CLI tells a refused user why, instead of waiting for an answer that cannot come.
        let broker0 = "mqtt://127.0.0.1:\(broker.port)"
        let viewerCommand = try CommandRunner.run([
            "command", id, "matter.OnOff.off", "--broker", broker0, "--username", "viewer", "--password-file",
            "\(folder)/viewer.pw",
        ])
        #expect(viewerCommand.exitCode == 1)
        #expect(
            viewerCommand.standardError.contains("the broker refused the command (Not authorized)"),
            "\(viewerCommand.standardError)")
        let operatorRename = try CommandRunner.run([
            "rename", id, "Hacked", "--broker", broker0, "--username", "operator", "--password-file",
            "\(folder)/operator.pw",
        ])
        #expect(operatorRename.exitCode == 1)
        #expect(
            operatorRename.standardError.contains("the broker refused the request (Not authorized)"),
            "\(operatorRename.standardError)")

        // No password in any output: serve's log (at debug) and the CLI's.
        serve.stop()
        let log = TestFiles.text(atPath: folder + "/serve.log")
        #expect(log.contains("starting"), "the log was written")
        for password in Self.passwords.values {
            #expect(
                !log.contains(password) && !status.standardOutput.contains(password)
                    && !status.standardError.contains(password))
        }
    }

    @Test(
        "the control role runs scenes and commands groups and devices; its edits of names, rooms, scenes and homes are refused by the broker"
    )
    func controlRole() throws {
        let (broker, folder, serve) = try Self.securedBridge("tb-control")
        defer {
            serve.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
        let z2m = try client(broker, "zigbee2mqtt", subscribe: ["zigbee2mqtt/#"])
        let admin = try client(broker, "admin", subscribe: ["traitbridge/#"])
        #expect(admin.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil)
        try z2m.publish("zigbee2mqtt/bridge/state", #"{"state":"online"}"#, retain: true)
        try z2m.publish("zigbee2mqtt/bridge/devices", Self.devices, retain: true)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF"}"#)
        let id = "z2m-0x00158d0001000001"
        #expect(admin.waitFor("traitbridge/devices/\(id)/state") { $0.payloadText.contains(#""onOff":false"#) } != nil)
        let scene = #"{"name": "Evening", "actions": [{"device": "\#(id)", "trait": "matter.OnOff", "command": "on"}]}"#
        try admin.publish("traitbridge/bridge/request/scene-add/a1", scene)
        try admin.publish("traitbridge/bridge/request/group-add/a2", #"{"name": "Lamps", "members": ["\#(id)"]}"#)
        #expect(admin.waitFor("traitbridge/bridge/response/group-add/a2") != nil, "the admin edits the layout")
        let sceneTopic = "traitbridge/scenes/my-home.scene.evening"
        #expect(admin.waitFor(sceneTopic) != nil)

        // The operator runs the scene and commands the group (answered), then tries to change things.
        let operatorClient = try client(broker, "operator", subscribe: ["traitbridge/bridge/response/#"])
        try operatorClient.publish("traitbridge/bridge/request/scene-run/o1", #"{"scene": "Evening"}"#)
        #expect(z2m.waitFor("zigbee2mqtt/Hall light/set") { $0.payloadText.contains("ON") } != nil, "the scene ran")
        #expect(operatorClient.waitFor("traitbridge/bridge/response/scene-run/o1") != nil, "and its answer came back")
        try operatorClient.publish(
            "traitbridge/bridge/request/group-command/o2",
            #"{"group": "Lamps", "trait": "matter.OnOff", "command": "off"}"#)
        #expect(operatorClient.waitFor("traitbridge/bridge/response/group-command/o2") != nil)
        try operatorClient.publish("traitbridge/devices/\(id)/set", #"{"id":"o3","trait":"matter.OnOff","#
            + #""command":"on"}"#)
        #expect(
            z2m.waitFor("zigbee2mqtt/Hall light/set") { _ in
                z2m.messages.all.filter { $0.topic == "zigbee2mqtt/Hall light/set" }.count >= 3
            } != nil, "the operator commands the device itself too")
        let edits = [
            ("rename", #"{"device": "\#(id)", "name": "Hacked"}"#),
            ("move", #"{"device": "\#(id)", "room": "Hacked"}"#),
            ("scene-actions", #"{"scene": "Evening", "actions": []}"#), ("scene-remove", #"{"scene": "Evening"}"#),
            ("home-add", #"{"name": "Hacked"}"#), ("group-members", #"{"group": "Lamps", "members": []}"#),
            (
                "automation-add",
                #"{"name": "Hacked", "triggers": [{"type": "calendar", "at": "07:00"}],"#
                    + #" "actions": [{"type": "notify", "message": "x"}]}"#
            ),
        ]
        for (operation, payload) in edits {
            try operatorClient.publish("traitbridge/bridge/request/\(operation)/x-\(operation)", payload)
        }
        // The admin's request after them is answered: the broker has handled the operator's by then.
        try admin.publish("traitbridge/bridge/request/home-rename/a3", #"{"name": "Our Home"}"#)
        #expect(admin.waitFor("traitbridge/bridge/response/home-rename/a3") != nil)
        #expect(!admin.messages.all.contains { $0.topic.contains("/response/") && $0.topic.contains("/x-") })
        #expect(!admin.messages.all.contains { $0.payloadText.contains("Hacked") })
        #expect(
            !admin.messages.all.contains { $0.topic.hasPrefix("traitbridge/automations/") }, "no automation was added")
        let scenes = admin.messages.all.filter { $0.topic == sceneTopic }
        #expect(scenes.last?.payloadText.contains(#""command":"on""#) == true, "the scene still has its action")
        #expect(
            admin.messages.all.filter { $0.topic.hasPrefix("traitbridge/homes/") }.allSatisfy {
                !$0.payloadText.isEmpty
            })

        // The CLI as the operator: a scene runs; a scene edit is refused and says why.
        let broker0 = "mqtt://127.0.0.1:\(broker.port)"
        let asOperator = ["--broker", broker0, "--username", "operator", "--password-file", "\(folder)/operator.pw"]
        let run = try CommandRunner.run(["scene", "run", "Evening"] + asOperator)
        #expect(run.standardOutput.contains("Hall light"), "\(run.standardOutput) \(run.standardError)")
        let remove = try CommandRunner.run(["scene", "remove", "Evening"] + asOperator)
        #expect(remove.exitCode == 1)
        #expect(
            remove.standardError.contains("the broker refused the request (Not authorized)"), "\(remove.standardError)")
        #expect(serve.isRunning)
    }

    @Test("a wrong password: the CLI says the broker refused, and prints neither password")
    func refused() throws {
        let broker = try MosquittoBroker(
            .init(users: Self.passwords, aclFile: CommandRunner.repository + "/examples/mosquitto.acl"))
        let result = try CommandRunner.run(
            ["status", "--broker", "mqtt://viewer:wrong-s3cret@127.0.0.1:\(broker.port)", "--timeout", "3"],
            environment: ["TRAITBRIDGE_PASSWORD": ""])
        #expect(result.exitCode == 3)
        #expect(
            !result.standardError.contains("wrong-s3cret") && !result.standardOutput.contains("wrong-s3cret"),
            "\(result.standardError)")
        #expect(result.standardError.contains("viewer:***@127.0.0.1"), "\(result.standardError)")
    }
}
