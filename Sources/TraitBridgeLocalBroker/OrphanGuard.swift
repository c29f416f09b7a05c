public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Cleans up after a process that was killed without a chance to clean up itself (`kill -9`, an
/// OOM kill): a small `/bin/sh` loop that checks once a second whether the process still lives,
/// and when it is gone stops the given children by PID and removes the given folders.
///
/// A parent-death signal (`prctl(PR_SET_PDEATHSIG)`) is not enough: mosquitto started as root
/// drops to its own user, and Linux clears the signal when the credentials change.
public final class OrphanGuard: @unchecked Sendable {
    private let process: ChildProcess

    /// Starts watching `owner` (this process) on behalf of `children` and `folders`; `afterwards`
    /// (argument lists, each run once in order) cleans up what is neither (a network sandbox).
    public init(
        owner: pid_t = getpid(), children: [pid_t], folders: [String], afterwards: [[String]] = []
    ) throws {
        let pids = children.map(String.init).joined(separator: " ")
        let paths = folders.map(Self.quoted).joined(separator: " ")
        let commands = afterwards.map { $0.map(Self.quoted).joined(separator: " ") + " >/dev/null 2>&1" }
        // Bounded by the owner's life; the kill and rm run once, after it.
        let script = """
            while kill -0 \(owner) 2>/dev/null; do sleep 1; done
            for pid in \(pids); do kill -TERM "$pid" 2>/dev/null; done
            sleep 1
            rm -rf -- \(paths)
            \(commands.joined(separator: "\n"))
            """
        process = try ChildProcess(["/bin/sh", "-c", script])
    }

    /// The owner ended properly and cleaned up: the guard is not needed any more.
    public func dismiss() { process.kill() }

    deinit { process.kill() }

    private static func quoted(_ path: String) -> String {
        "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
