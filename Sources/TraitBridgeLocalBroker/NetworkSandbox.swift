import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A network namespace made by `scripts/sandbox.sh`, with a veth pair to this one and no route
/// beyond it: the peers that multicast (the Matter Server and the software light speak mDNS on
/// every interface they have) or gather ICE candidates run inside it, so nothing they send reaches
/// the machine's own network. The bridge reaches them at ``peerAddress``. Removed when released,
/// and by a guard process when this one is killed before it could remove it.
public final class NetworkSandbox: @unchecked Sendable {
    /// The namespace's name (`tbsb-<pid>-<n>`), for `ip netns exec`.
    public let name: String
    /// This side of the pair.
    public let hostAddress: String
    /// The sandbox's side of the pair: where a peer inside listens for the bridge.
    public let peerAddress: String
    /// This side's interface of the pair (`tbsb<n>`): whatever the peers send outward arrives here.
    public var hostInterface: String { "tbsb" + (name.split(separator: "-").last.map(String.init) ?? "") }
    private let script: String
    private let ipTool: String
    private var orphanGuard: OrphanGuard?
    private var isRemoved = false

    public enum SandboxError: Error, CustomStringConvertible {
        case unavailable(String)
        case failed(String)

        public var description: String {
            switch self {
            case .unavailable(let reason): reason
            case .failed(let output): "scripts/sandbox.sh could not make a network namespace: \(output)"
            }
        }
    }

    /// Why no sandbox can be made here (not root, no `ip`, no script), or nil when one can.
    public static func unavailableReason(repository: String) -> String? {
        if geteuid() != 0 {
            return "the peers that multicast run only inside a network namespace, and making one needs root"
        }
        if tool() == nil { return "the ip tool (iproute2) is missing: apt-get install iproute2" }
        if !FileManager.default.isExecutableFile(atPath: repository + "/scripts/sandbox.sh") {
            return "scripts/sandbox.sh is not in \(repository): run from the repository's checkout"
        }
        return nil
    }

    /// Makes a sandbox (bounded: the script's lock waits ≤ 30 s, the script itself ≤ 60 s).
    public init(repository: String) throws {
        if let reason = Self.unavailableReason(repository: repository) { throw SandboxError.unavailable(reason) }
        script = repository + "/scripts/sandbox.sh"
        ipTool = Self.tool() ?? "ip"
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tb-sandbox-\(UUID().uuidString)").path
        defer { unlink(log) }
        let process = try ChildProcess([script, "up", "\(getpid())"], logFile: log)
        guard process.reap(within: .seconds(60)) else {
            process.kill()
            throw SandboxError.failed("no answer within 60 s")
        }
        let output = LogFile.read(log).trimmingCharacters(in: .whitespacesAndNewlines)
        let fields = output.split(separator: " ").map(String.init)
        guard process.exitStatus == 0, fields.count == 3, fields[0].hasPrefix("tbsb-") else {
            throw SandboxError.failed(String(output.suffix(1000)))
        }
        (name, hostAddress, peerAddress) = (fields[0], fields[1], fields[2])
        orphanGuard = try? OrphanGuard(children: [], folders: [], afterwards: [[script, "down", name]])
    }

    deinit { remove() }

    /// `arguments` run inside the sandbox (`ip netns exec`, which execs in place: the process
    /// started is the command itself, stopped by its PID as before).
    public func command(_ arguments: [String]) -> [String] { [ipTool, "netns", "exec", name] + arguments }

    /// Kills what still runs inside and removes the namespace and its pair.
    public func remove() {
        guard !isRemoved else { return }
        isRemoved = true
        if let process = try? ChildProcess([script, "down", name]), !process.reap(within: .seconds(30)) {
            process.kill()
        }
        orphanGuard?.dismiss()
        orphanGuard = nil
    }

    private static func tool() -> String? {
        ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
