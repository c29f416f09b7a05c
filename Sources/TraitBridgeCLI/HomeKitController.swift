import Foundation
import Synchronization
import TraitBridgeLocalBroker

/// Why a HomeKit peer could not run.
enum HomeKitControllerError: Error, CustomStringConvertible {
    case didNotStart(log: String)
    case responder(String)
    var description: String {
        switch self {
        case .didNotStart(let log): "the HomeKit controller (aiohomekit) did not start; its log: \(log)"
        case .responder(let why): "the mDNS responder (avahi-daemon) did not start in the sandbox: \(why)"
        }
    }
}

/// avahi-daemon with a D-Bus of its own inside a network sandbox (scripts/homekit-responder.sh).
enum HomeKitResponder {
    /// Starts it; the D-Bus address for avahi-publish (`DBUS_SYSTEM_BUS_ADDRESS`).
    static func start(in sandbox: NetworkSandbox, repository: String, folder: URL) throws -> String {
        let log = folder.appendingPathComponent("responder.log").path
        let process = try ChildProcess(
            [
                repository + "/scripts/homekit-responder.sh", "up", sandbox.name,
                folder.appendingPathComponent("mdns").path,
            ],
            logFile: log)
        let text = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        guard process.reap(within: .seconds(30)), process.exitStatus == 0 else {
            process.kill()
            throw HomeKitControllerError.responder(text())
        }
        return text().split(separator: "\n").last.map(String.init) ?? ""
    }
}

/// A running aiohomekit controller: one JSON command per line in, its answer (and event lines) out.
final class HomeKitController: @unchecked Sendable {
    /// `python`: the venv's interpreter; `script`: scripts/homekit-controller.py.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    /// Whole lines received and not yet taken, and the part of a line still coming.
    private let received = ReceivedLines()
    let log: String

    init(in sandbox: NetworkSandbox, python: String, script: String, log: String) throws {
        self.log = log
        let command = sandbox.command([python, script])
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
        guard answer(timeout: .seconds(30)) != nil else { throw HomeKitControllerError.didNotStart(log: log) }
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
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let line = received.state.withLock { state -> String? in
                guard let index = state.lines.firstIndex(where: { !Self.isEvent($0) }) else { return nil }
                return state.lines.remove(at: index)
            }
            if let line { return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
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
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
    }
}

/// Whole lines received and not yet taken, and the part of a line still coming.
final class ReceivedLines: Sendable {
    let state = Mutex<(lines: [String], partial: String)>(([], ""))
}
