import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeTesting

#if canImport(Glibc)
    import Glibc
#endif

/// A `traitbridge` command a test runs as a child (`serve`, `demo`, `simulate`, `watch`), checked
/// when it ends: stopped by SIGTERM or SIGINT it must exit with status 0 and leave no crash in its
/// log, or the test fails showing the crash's first lines (a daemon that traps on a busy shutdown
/// is a bug, and the test that stopped it is where it must show). The Swift runtime's crash
/// reporter runs non-interactive and bounded, and is waited for; then whatever is left of the
/// child's process group is killed, so nothing a test started outlives it. A child the test never
/// stopped is stopped and checked when it is released.
final class BridgeProcess {
    let log: String
    let command: String
    private let child: ChildProcess
    private let ownsLog: Bool
    private var isChecked = false

    /// How the runtime's backtracer runs in a child: no prompt, no symbol files read beyond what
    /// it needs, the crashed thread only (a few seconds instead of a minute).
    static let backtrace = "enable=yes,interactive=no,symbolicate=fast,threads=crashed,registers=none,images=none"

    /// Starts the tested `traitbridge <arguments>`; its output goes to `log` (a file of its own when nil).
    convenience init(_ arguments: [String], log: String? = nil, environment: [String: String] = [:]) throws {
        try self.init(
            launching: [CommandRunner.executable.path] + arguments, command: arguments.first ?? "traitbridge",
            log: log, environment: environment)
    }

    /// Starts `argv` (a traitbridge elsewhere, or a shell that execs one) as `command`.
    init(launching argv: [String], command: String, log: String? = nil, environment: [String: String] = [:]) throws {
        self.command = command
        ownsLog = log == nil
        self.log = log ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("tb-child-\(UUID().uuidString).log").path
        child = try ChildProcess(
            argv, logFile: self.log, environment: environment.merging(["SWIFT_BACKTRACE": Self.backtrace]) { $1 })
    }

    deinit {
        if !isChecked { stop() }
        if ownsLog { try? FileManager.default.removeItem(atPath: log) }
    }

    var pid: pid_t { child.pid }
    var isRunning: Bool { child.isRunning }
    /// The exit status once it ended (negative: the signal that ended it).
    var exitStatus: Int32? { child.exitStatus }

    /// SIGTERM, then the end is checked (status 0, no crash); false when it did not end cleanly.
    @discardableResult
    func stop(within timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        signal(SIGTERM, waitUpTo: timeout, sourceLocation: sourceLocation) && exitStatus == 0
    }

    /// Sends `signal` and waits up to `timeout` for the end, which is then checked: SIGTERM, SIGINT
    /// and SIGHUP must end it with status 0. False when it did not end within the time (it is then
    /// killed, and that fails the test).
    @discardableResult
    func signal(
        _ signal: Int32, waitUpTo timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        guard !isChecked else { return true }
        let name = Self.signalName(signal)
        Glibc.kill(child.pid, signal)
        let ended = waitForEnd(within: timeout)
        check(after: "\(name)", expecting: 0, ended: ended, sourceLocation: sourceLocation)
        return ended
    }

    /// Waits for a child that ends by itself (`--once`, `--duration`, `--count`); its end is checked
    /// against `status`. Nil when it did not end within the time (then it is killed: a failure).
    @discardableResult
    func waitForExit(
        within timeout: Duration, expecting status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Int32? {
        let ended = waitForEnd(within: timeout)
        check(after: "running to its end", expecting: status, ended: ended, sourceLocation: sourceLocation)
        return ended ? exitStatus : nil
    }

    /// SIGKILL on purpose (a test of what happens when the bridge cannot clean up): not checked.
    func kill() {
        isChecked = true
        child.kill()
    }

    /// Waits for the end; a child whose crash reporter is still writing gets the time it needs
    /// (bounded), and a child that does not end is killed with its process group.
    private func waitForEnd(within timeout: Duration) -> Bool {
        if child.reap(within: timeout) { return true }
        if Self.crashLines(in: LogFile.read(log)) != nil, child.reap(within: .seconds(120)) { return true }
        child.kill()
        return false
    }

    private func check(after what: String, expecting status: Int32, ended: Bool, sourceLocation: SourceLocation) {
        isChecked = true
        let text = LogFile.read(log)
        let name = "traitbridge \(command) (pid \(child.pid))"
        let problem: String
        if let crash = Self.crashLines(in: text) {
            problem = "\(name) crashed after \(what), \(describeEnd()):\n\(crash)"
        } else if !ended {
            problem = "\(name) did not end after \(what): killed. Its log ends:\n\(Self.tail(text))"
        } else if exitStatus != status {
            problem = "\(name) \(describeEnd()) after \(what), not status \(status). Its log ends:\n\(Self.tail(text))"
        } else {
            return
        }
        Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
    }

    private func describeEnd() -> String {
        guard let status = exitStatus else { return "still running" }
        return status < 0 ? "ended by \(Self.signalName(-status))" : "exited with status \(status)"
    }

    /// The first lines of a crash report in `text` (the runtime's, a fatal error, a sanitizer's), or nil.
    static func crashLines(in text: String) -> String? {
        let markers = [
            "Fatal error:", "*** Program crashed", "*** Signal ", "ERROR: AddressSanitizer",
            "ERROR: LeakSanitizer", "ERROR: ThreadSanitizer", "Illegal instruction",
        ]
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.firstIndex(where: { line in markers.contains { line.contains($0) } }) else {
            return nil
        }
        return lines[first..<min(lines.count, first + 40)].joined(separator: "\n")
    }

    static func tail(_ text: String, lines count: Int = 15) -> String {
        text.split(separator: "\n").suffix(count).joined(separator: "\n")
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        case SIGKILL: "SIGKILL"
        case SIGILL: "SIGILL"
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGTRAP: "SIGTRAP"
        default: "signal \(signal)"
        }
    }
}
