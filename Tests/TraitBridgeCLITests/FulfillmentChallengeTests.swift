import Foundation
import NIOHTTP1
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// Google's secondary user verification through the real endpoint: a real `serve`, a pretend
/// zigbee2mqtt with a door lock, and Google's EXECUTE with and without the user's answer.
extension FulfillmentTests {
    static let lock = "z2m-0x00158d0001000004"
    static let pin = "4711"

    @Test("challenge: unlocking needs the PIN (none → pinNeeded, wrong → challengeFailedPinNeeded, right → runs)")
    func challenge() async throws {
        let pinFile = FileManager.default.temporaryDirectory.appendingPathComponent("tb-pin-\(UUID().uuidString)").path
        try "\(Self.pin)\n".write(toFile: pinFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: pinFile) }
        let section = #"""
            "challenge": {"pinFile": "\#(pinFile)", "ackDevices": {"ids": ["z2m-0x00158d0001000001"]}, "maxFailedPins": 3},
            """#
        try await withHome(httpExtra: section) { home in try await challenge(home) }
    }

    /// The demo's devices plus the demo home's Yale lock, announced by the pretend zigbee2mqtt.
    func addLock(_ home: Home) throws -> TestMQTTClient {
        let z2m = try TestMQTTClient(
            home.broker, subscribe: ["zigbee2mqtt/Front door lock/set", "traitbridge/devices/+/state"])
        let list = CommandRunner.repository + "/examples/demo-zigbee2mqtt-devices.json"
        let homeList = CommandRunner.repository + "/examples/demo-home-zigbee2mqtt-devices.json"
        var devices = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: list))) as? [[String: Any]])
        let lock = try #require(
            (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: homeList)))
                as? [[String: Any]])?
                .first { $0["friendly_name"] as? String == "Front door lock" })
        devices.append(lock)
        let text = String(decoding: try JSONSerialization.data(withJSONObject: devices), as: UTF8.self)
        try z2m.publish("zigbee2mqtt/bridge/devices", text, retain: true)
        try z2m.publish("zigbee2mqtt/Front door lock", #"{"state":"LOCK","lock_state":"locked"}"#, retain: true)
        #expect(
            z2m.waitFor("traitbridge/devices/\(Self.lock)/state") { $0.payloadText.contains(#""online""#) } != nil,
            "the lock is bridged")
        return z2m
    }

    func lockCommand(lock: Bool, challenge: String? = nil) -> String {
        let answer = challenge.map { #","challenge":\#($0)"# } ?? ""
        return intent(
            "EXECUTE",
            #"{"commands":[{"devices":[{"id":"\#(Self.lock)"}],"execution":[{"command":"action.devices.commands.LockUnlock","params":{"lock":\#(lock)}\#(answer)}]}]}"#
        )
    }

    func challenge(_ home: Home) async throws {
        let z2m = try addLock(home)
        func execute(_ body: String) async throws -> [String: Any] {
            let answer = try await send(home, .POST, "/smarthome", body: body, token: Self.staticToken)
            #expect(answer.status == 200, "\(answer.body)")
            let commands = (answer.json["payload"] as? [String: Any])?["commands"] as? [[String: Any]]
            return try #require(commands?.first, "\(answer.body)")
        }
        func sets() -> [String] {
            z2m.messages.all.filter { $0.topic == "zigbee2mqtt/Front door lock/set" }.map(\.payloadText)
        }
        let none = try await execute(lockCommand(lock: false))
        #expect(none["status"] as? String == "ERROR" && none["errorCode"] as? String == "challengeNeeded")
        #expect((none["challengeNeeded"] as? [String: Any])?["type"] as? String == "pinNeeded", "\(none)")
        let yes = try await execute(lockCommand(lock: false, challenge: #"{"ack":true}"#))
        #expect((yes["challengeNeeded"] as? [String: Any])?["type"] as? String == "pinNeeded", "a yes is not a PIN")
        let wrong = try await execute(lockCommand(lock: false, challenge: #"{"pin":"1234"}"#))
        #expect((wrong["challengeNeeded"] as? [String: Any])?["type"] as? String == "challengeFailedPinNeeded")
        #expect(sets().isEmpty, "nothing reached the lock without the PIN: \(sets())")

        let right = try await execute(lockCommand(lock: false, challenge: #"{"pin":"\#(Self.pin)"}"#))
        #expect(right["status"] as? String == "PENDING", "sent; the pretend lock does not echo: \(right)")
        #expect(z2m.waitFor("zigbee2mqtt/Front door lock/set") { $0.payloadText.contains("UNLOCK") } != nil)
        let locking = try await execute(lockCommand(lock: true))
        #expect(locking["status"] as? String == "PENDING", "locking never asks: \(locking)")
        #expect(sets().count == 2, "\(sets())")

        // The Hall light is in ackDevices: a command without a yes is answered with its current state.
        let on =
            #"{"commands":[{"devices":[{"id":"z2m-0x00158d0001000001"}],"execution":[{"command":"action.devices.commands.OnOff","params":{"on":true}"#
        let ack = try await execute(intent("EXECUTE", on + "}]}]}"))
        #expect((ack["challengeNeeded"] as? [String: Any])?["type"] as? String == "ackNeeded", "\(ack)")
        #expect((ack["states"] as? [String: Any])?["on"] as? Bool == false, "the state the user confirms against")
        let acked = try await execute(intent("EXECUTE", on + #","challenge":{"ack":true}}]}]}"#))
        #expect(acked["status"] as? String != "ERROR", "\(acked)")

        // Three wrong PINs (one above) lock PIN challenges, even for the right PIN.
        for _ in 0..<2 { _ = try await execute(lockCommand(lock: false, challenge: #"{"pin":"0000"}"#)) }
        let locked = try await execute(lockCommand(lock: false, challenge: #"{"pin":"\#(Self.pin)"}"#))
        #expect(locked["errorCode"] as? String == "tooManyFailedAttempts", "\(locked)")
        #expect(sets().count == 2, "\(sets())")

        let log = TestFiles.text(atPath: home.folder + "/serve.log")
        #expect(!log.contains(Self.pin), "the PIN is never logged")
    }
}
