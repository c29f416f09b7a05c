import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// A partner's secondary user verification and PENDING answers, end to end: A's CLI commands B's
/// lock through the link; B asks for the PIN, the CLI says to add `--pin`; at a terminal it asks
/// for the PIN and sends it again, B runs the command and answers PENDING (its pretend lock is
/// slow), and A confirms when the lock's new state reaches it.
extension FulfillmentTests {
    @Test("cloud link challenge: the partner's pinNeeded → --pin, or asked at a terminal; PENDING → confirmed later")
    func cloudLinkChallenge() async throws {
        let pinFile = FileManager.default.temporaryDirectory.appendingPathComponent("tb-pin-\(UUID().uuidString)").path
        try "\(Self.pin)\n".write(toFile: pinFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: pinFile) }
        try await withHome(httpExtra: #""challenge": {"pinFile": "\#(pinFile)"},"#) { bridgeB in
            let z2m = try addLock(bridgeB)
            let (brokerA, serveA, folder) = try startA(linkedTo: bridgeB)
            defer {
                serveA.stop()
                brokerA.stop()
            }
            let lock = "c2c-\(Self.lock)"
            let watcher = try TestMQTTClient(brokerA, subscribe: ["traitbridge/devices/\(lock)/state"])
            #expect(
                watcher.waitFor("traitbridge/devices/\(lock)/state", timeout: .seconds(20)) {
                    $0.payloadText.contains(#""connectivityState":"online""#)
                } != nil, "A bridges B's lock")

            let asked = try CommandRunner.run([
                "command", lock, "matter.DoorLock.unlockDoor", "--broker", brokerA.url, "--timeout", "20",
            ])
            #expect(asked.exitCode == 1, "\(asked.standardOutput)\(asked.standardError)")
            #expect(
                asked.standardError.contains("challengeNeeded: cloud link b asks for the PIN")
                    && asked.standardError.contains("--pin"), "\(asked.standardError)")
            let sets = { z2m.messages.all.filter { $0.topic == "zigbee2mqtt/Front door lock/set" }.count }
            #expect(sets() == 0, "nothing reached the lock without the PIN")

            let wrong = try CommandRunner.run([
                "command", lock, "matter.DoorLock.unlockDoor", "--pin", "0000", "--broker", brokerA.url, "--timeout",
                "20",
            ])
            #expect(
                wrong.exitCode == 1 && wrong.standardError.contains("cloud link b refused the PIN"),
                "--pin travels to B: \(wrong.standardError)")
            #expect(sets() == 0)

            // At a terminal (script(1) gives it one) the CLI asks for the PIN and sends it again.
            let command = [
                CommandRunner.executable.path, "command", lock, "matter.DoorLock.unlockDoor", "--broker", brokerA.url,
                "--timeout", "20",
            ].map { "'\($0)'" }.joined(separator: " ")
            let terminal = Process()
            terminal.executableURL = URL(fileURLWithPath: "/bin/sh")
            terminal.arguments = ["-c", "printf '\(Self.pin)\\n' | script -qec \"\(command)\" /dev/null"]
            let pipe = Pipe()
            terminal.standardOutput = pipe
            try terminal.run()
            // The pretend lock turns only after B has answered PENDING (B's command timeout is 2 s).
            // Done here, not on a task: the test's own thread is not shared with other tests.
            #expect(
                z2m.waitFor("zigbee2mqtt/Front door lock/set", timeout: .seconds(20)) != nil, "the PIN opened the way")
            usleep(3_000_000)  // blocking on purpose: this thread goes on at once
            try z2m.publish("zigbee2mqtt/Front door lock", #"{"state":"UNLOCK","lock_state":"unlocked"}"#, retain: true)
            let transcript = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            terminal.waitUntilExit()
            #expect(terminal.terminationStatus == 0, "\(transcript)")
            #expect(transcript.contains("PIN for \(lock): "), "asked at the terminal: \(transcript)")
            #expect(transcript.contains("pending: the partner cloud is carrying it out"), "\(transcript)")
            #expect(transcript.contains("confirmed:"), "\(transcript)")
            #expect(sets() == 1)
            let log = TestFiles.text(atPath: folder + "/serve.log")
            #expect(!log.contains(Self.pin), "the PIN is never logged on A")
        }
    }
}
