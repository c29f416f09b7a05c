public import Foundation

/// avahi-daemon with a D-Bus of its own inside a network sandbox (`scripts/homekit-responder.sh`):
/// the mDNS responder the demo and the tests announce through (HomeKit's `_hap._tcp`, the Matter
/// device's `_matterc._udp` and `_matter._tcp`) while their peers browse inside the sandbox, so
/// nothing is announced on the machine's own network. It exists here, beside ``NetworkSandbox``,
/// because `traitbridge demo` and every test target that needs a responder share it.
public enum MDNSResponder {
    /// Why the responder could not start.
    public struct StartFailure: Error, CustomStringConvertible {
        /// The script's output.
        public var log: String
        public var description: String { "the mDNS responder (avahi-daemon) did not start in the sandbox: \(log)" }
    }

    /// Why no responder can run here (no sandbox, or Avahi or D-Bus not installed), or nil.
    public static func unavailableReason(repository: String) -> String? {
        if let reason = NetworkSandbox.unavailableReason(repository: repository) { return reason }
        let tools = ["/usr/bin/avahi-publish", "/usr/sbin/avahi-daemon", "/usr/bin/dbus-daemon"]
        guard tools.allSatisfy({ FileManager.default.isExecutableFile(atPath: $0) }) else {
            return "avahi-daemon and avahi-utils are not installed (scripts/install-homekit-peers.sh)"
        }
        return nil
    }

    /// Starts it in `sandbox` (its files in `folder`/mdns, its log in `folder`/responder.log;
    /// bounded: 30 s); the D-Bus address for avahi-publish (`DBUS_SYSTEM_BUS_ADDRESS`). It ends with
    /// the sandbox.
    public static func start(in sandbox: NetworkSandbox, repository: String, folder: URL) throws -> String {
        let log = folder.appendingPathComponent("responder.log").path
        let process = try ChildProcess(
            [
                repository + "/scripts/homekit-responder.sh", "up", sandbox.name,
                folder.appendingPathComponent("mdns").path,
            ],
            logFile: log)
        guard process.reap(within: .seconds(30)), process.exitStatus == 0 else {
            process.kill()
            throw StartFailure(log: LogFile.read(log))
        }
        return LogFile.read(log).split(separator: "\n").last.map(String.init) ?? ""
    }
}
