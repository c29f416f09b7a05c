import Foundation
import Synchronization
import Testing
import TraitBridgeLocalBroker
import TraitBridgeTesting

/// The HomeKit tests' peers (`scripts/install-homekit-peers.sh`): avahi-daemon in a network
/// sandbox (`scripts/homekit-responder.sh`) and a real controller, aiohomekit, driven line by line
/// (`scripts/homekit-controller.py`) inside the same sandbox.
enum HomeKitPeers {
    static let python = CommandRunner.repository + "/.build-homekit/venv/bin/python"

    /// Why the HomeKit peers cannot run here, or nil.
    static var unavailableReason: String? {
        if let reason = NetworkSandbox.unavailableReason(repository: CommandRunner.repository) { return reason }
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "aiohomekit is not installed (scripts/install-homekit-peers.sh; make test runs it)"
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/avahi-publish"),
            FileManager.default.isExecutableFile(atPath: "/usr/sbin/avahi-daemon")
        else { return "avahi-daemon and avahi-utils are not installed (scripts/install-homekit-peers.sh)" }
        return nil
    }

    /// Starts the responder in `sandbox`; its D-Bus address for the bridge's avahi-publish.
    static func responder(in sandbox: NetworkSandbox, folder: URL) throws -> String {
        let log = folder.appendingPathComponent("responder.log").path
        let process = try ChildProcess(
            [CommandRunner.repository + "/scripts/homekit-responder.sh", "up", sandbox.name,
                folder.appendingPathComponent("mdns").path], logFile: log)
        guard process.reap(within: .seconds(30)), process.exitStatus == 0 else {
            process.kill()
            throw HomeKitPeerError.failed("the responder did not start: \(LogFile.read(log))")
        }
        return LogFile.read(log).split(separator: "\n").last.map(String.init) ?? ""
    }
}

enum HomeKitPeerError: Error { case failed(String) }

/// A running aiohomekit controller: one JSON command per line in, its answer (and event lines) out.
final class HomeKitController: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    /// Whole lines received and not yet taken, and the part of a line still coming.
    private let received = ReceivedLines()
    let log: String

    init(in sandbox: NetworkSandbox, log: String) throws {
        self.log = log
        let command = sandbox.command([HomeKitPeers.python, CommandRunner.repository + "/scripts/homekit-controller.py"])
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardInput = input
        process.standardOutput = output
        FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        let received = received
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else { return }
            received.state.withLock { state in
                var parts = (state.partial + String(decoding: data, as: UTF8.self)).split(
                    separator: "\n", omittingEmptySubsequences: false
                ).map(String.init)
                state.partial = parts.removeLast()
                state.lines += parts.filter { !$0.isEmpty }
            }
        }
        try process.run()
        guard answer(timeout: .seconds(30)) != nil else { throw HomeKitPeerError.failed("the controller did not start") }
    }

    /// Sends `command` and waits (bounded) for its answer line.
    func send(_ command: [String: Any], timeout: Duration = .seconds(40)) -> [String: Any]? {
        guard let data = try? JSONSerialization.data(withJSONObject: command) else { return nil }
        input.fileHandleForWriting.write(data + Data("\n".utf8))
        return answer(timeout: timeout)
    }

    private static func isEvent(_ line: String) -> Bool { line.hasPrefix(#"{"event""#) }

    /// The next line that is not an event, parsed.
    private func answer(timeout: Duration) -> [String: Any]? {
        var found: [String: Any]?
        _ = eventually(timeout: timeout) {
            received.state.withLock { state in
                guard let index = state.lines.firstIndex(where: { !Self.isEvent($0) }) else { return false }
                let line = state.lines.remove(at: index)
                found = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                return true
            }
        }
        return found
    }

    /// The events received so far, each `[aid, iid, value]`, taken out of the buffer.
    func takeEvents() -> [[Any]] {
        received.state.withLock { state in
            let events = state.lines.filter(Self.isEvent)
            state.lines.removeAll(where: Self.isEvent)
            return events.flatMap { line in
                ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["event"] as? [[Any]]
                    ?? []
            }
        }
    }

    func stop() {
        try? input.fileHandleForWriting.write(contentsOf: Data((#"{"op": "quit"}"# + "\n").utf8))
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { process.terminate() }
        output.fileHandleForReading.readabilityHandler = nil
    }
}

/// Whole lines received and not yet taken, and the part of a line still coming.
final class ReceivedLines: Sendable {
    let state = Mutex<(lines: [String], partial: String)>(([], ""))
}
