import Foundation
import Synchronization
import TraitBridgeLocalBroker

/// Why a HomeKit peer could not run.
enum HomeKitControllerError: Error, CustomStringConvertible {
    case didNotStart(log: String)
    var description: String {
        switch self {
        case .didNotStart(let log): "the HomeKit controller (aiohomekit) did not start; its log: \(log)"
        }
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
    private var reader: LineReader?
    let log: String

    init(in sandbox: NetworkSandbox, python: String, script: String, log: String) throws {
        self.log = log
        let command = sandbox.command([python, script])
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardInput = input
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        // Read by a thread of our own with plain read(2): Foundation's readabilityHandler on Linux can
        // corrupt the heap (swift-corelibs-foundation#3276), the likely cause of an ASan report in CI.
        let reader = LineReader(handle: output.fileHandleForReading, into: received)
        Thread.detachNewThread { reader.run() }
        self.reader = reader
        guard answer(timeout: .seconds(30)) != nil else {
            stop()
            throw HomeKitControllerError.didNotStart(log: log)
        }
    }

    /// Sends `command` and waits (bounded) for its answer line.
    func send(_ command: [String: Any], timeout: Duration = .seconds(40)) -> [String: Any]? {
        guard let data = try? JSONSerialization.data(withJSONObject: command) else { return nil }
        guard (try? input.fileHandleForWriting.write(contentsOf: data + Data("\n".utf8))) != nil else { return nil }
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
        reader?.stop()
    }
}

/// Whole lines received and not yet taken, and the part of a line still coming.
final class ReceivedLines: Sendable {
    let state = Mutex<(lines: [String], partial: String)>(([], ""))

    func append(_ bytes: ArraySlice<UInt8>) {
        state.withLock { state in
            var parts = (state.partial + String(decoding: bytes, as: UTF8.self)).split(
                separator: "\n", omittingEmptySubsequences: false
            ).map(String.init)
            state.partial = parts.removeLast()
            state.lines += parts.filter { !$0.isEmpty }
        }
    }
}

/// Reads a pipe into `ReceivedLines` until its end, or until stopped (it looks every 200 ms). It holds
/// the handle, so the descriptor stays open while it reads.
final class LineReader: Sendable {
    private let handle: FileHandle
    private let received: ReceivedLines
    private let stopped = Atomic<Bool>(false)

    init(handle: FileHandle, into received: ReceivedLines) {
        self.handle = handle
        self.received = received
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    func run() {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while !stopped.load(ordering: .relaxed) {
            var poller = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 200)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return }
            if ready == 0 { continue }
            let count = chunk.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            received.append(chunk[..<count])
        }
    }
}
