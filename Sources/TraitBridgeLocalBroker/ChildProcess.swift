public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with posix_spawn, stopped and reaped by its PID. The child starts
/// with no blocked signals (test runners block some on their threads, and a child that inherits
/// a blocked SIGTERM would ignore a clean stop), reads /dev/null, and leads a process group of its
/// own: `kill()` ends it together with what it started in that group (the Swift runtime's crash
/// reporter among them), so nothing is left behind; a signal asks the child alone.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private var isReaped = false
    /// The exit status once reaped; a negative number is the signal that ended it (-9: SIGKILL).
    public private(set) var exitStatus: Int32?

    /// Starts `arguments[0]` with the given arguments; stdout and stderr go to `logFile` (or
    /// /dev/null). `environment` is added to this process's own (a name given replaces it).
    public init(_ arguments: [String], logFile: String? = nil, environment: [String: String] = [:]) throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let output = logFile ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cArguments = arguments.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var child: pid_t = 0
        let rc: Int32
        if environment.isEmpty {
            rc = posix_spawn(&child, arguments[0], &actions, &attributes, &cArguments, environ)
        } else {
            var merged = ProcessInfo.processInfo.environment
            merged.merge(environment) { $1 }
            var cEnvironment = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for entry in cEnvironment { free(entry) } }
            rc = posix_spawn(&child, arguments[0], &actions, &attributes, &cArguments, &cEnvironment)
        }
        guard rc == 0 else {
            throw NSError(
                domain: "ChildProcess", code: Int(rc),
                userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(arguments[0]): \(String(cString: strerror(rc)))"])
        }
        pid = child
    }

    deinit { kill() }

    public var isRunning: Bool { !reap(within: .zero) }

    /// Sends `signal` and waits up to `timeout` for the exit; true when it exited.
    @discardableResult
    public func signal(_ signal: Int32, waitUpTo timeout: Duration = .seconds(5)) -> Bool {
        guard !isReaped else { return true }
        Glibc.kill(pid, signal)
        return reap(within: timeout)
    }

    /// SIGTERM, then SIGKILL after 5 s.
    public func stop() {
        if !signal(SIGTERM) { kill() }
    }

    /// SIGKILL at once, to the child and what it started in its process group.
    public func kill() {
        guard !isReaped else { return }
        Glibc.kill(-pid, SIGKILL)
        Glibc.kill(pid, SIGKILL)
        _ = reap(within: .seconds(5))
    }

    /// Waits for the exit (bounded); true when the child has exited.
    @discardableResult
    public func reap(within timeout: Duration) -> Bool {
        if isReaped { return true }
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                isReaped = true
                exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
                return true
            }
            if result == -1 && errno == ECHILD {
                isReaped = true
                return true
            }
            if ContinuousClock.now >= deadline { return false }
            usleep(5_000)
        }
    }
}

/// A child's log file as text, read with plain `read(2)`: Foundation's file reading leaks its buffer
/// (LeakSanitizer) when the file grows while it is read, which a running child's log does.
public enum LogFile {
    public static func read(_ path: String) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < 64 << 20 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
