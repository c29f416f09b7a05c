public import Logging
import Synchronization
import TraitBridgeLocalBroker

#if canImport(Glibc)
    import Glibc
#endif

/// Announces a set of DNS-SD services through the machine's mDNS responder, Avahi, with its
/// `avahi-publish` tool (one process per record, over avahi-daemon's D-Bus: the system bus, or the
/// one `DBUS_SYSTEM_BUS_ADDRESS` names): a host name with the IPv4 addresses of the given
/// interfaces, and each service on that host. It exists so HomeKit and the Matter device announce
/// themselves the same way; each user has its own advertiser and host name (two publishers of one
/// host's address would collide in Avahi), and its log lines start with the user's label.
///
/// Publishing a set again compares it with what runs: a record that changed or whose publisher
/// ended is withdrawn and started again, a record no longer wanted is withdrawn, a new one started.
public final class AvahiAdvertiser: Sendable {
    private let logger: Logger
    /// "HomeKit", "Matter": the first word of every log line.
    private let label: String
    /// The setting that names the interfaces, for the log ("homekit.mdns").
    private let setting: String
    /// Added to avahi-publish's environment (the tests' `DBUS_SYSTEM_BUS_ADDRESS`).
    private let environment: [String: String]
    private let state = Mutex(State())

    private struct State {
        /// The running publishers, by their arguments (the record they publish).
        var running: [[String]: ChildProcess] = [:]
        var stopped = false
        var warnedEnded = false
        var warnedMissingTool = false
        var warnedNoAddress = false
    }

    /// One record to publish: avahi-publish's arguments, and the service when it is one (nil: an address).
    private struct Record {
        var arguments: [String]
        var service: DNSSDService?
        var what: String
    }

    /// `label` starts every log line; `setting` names the interfaces' setting in the log;
    /// `environment` is added to each avahi-publish's own.
    public init(label: String, setting: String, logger: Logger, environment: [String: String] = [:]) {
        self.label = label
        self.setting = setting
        self.logger = logger
        self.environment = environment
    }

    /// Where avahi-publish is, or nil.
    public static func tool() -> String? {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] where access(directory + "/avahi-publish", X_OK) == 0 {
            return directory + "/avahi-publish"
        }
        return nil
    }

    /// The IPv4 addresses of `interfaces` now.
    public static func addresses(of interfaces: [String]) -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                interfaces.contains(String(cString: entry.pointee.ifa_name))
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var raw = inet.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(INET_ADDRSTRLEN))
            }
            found.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return found
    }

    /// avahi-publish's arguments for `service` on `host` (after the tool's path). The options end
    /// with `--`, so a name or TXT value starting with `-` is not taken for one.
    public static func arguments(for service: DNSSDService, host: String) -> [String] {
        ["-s", "-H", host] + service.subtypeNames.map { "--subtype=" + $0 }
            + ["--", service.name, service.type, String(service.port)] + service.txtStrings
    }

    /// Publishes `services` on `host` (`name.local`) with the IPv4 addresses `interfaces` have now,
    /// starting and withdrawing only what differs from what runs (and what ended). With no address
    /// on the interfaces, nothing is announced (and what was is withdrawn).
    public func publish(_ services: [DNSSDService], host: String, interfaces: [String]) {
        guard let tool = Self.tool() else {
            let warn = state.withLock { state in
                defer { state.warnedMissingTool = true }
                return !state.warnedMissingTool
            }
            if warn {
                logger.error(
                    "\(label): avahi-publish is missing: apt-get install avahi-utils avahi-daemon (not announced)")
            }
            return
        }
        let addresses = Self.addresses(of: interfaces)
        var records = addresses.map { address in
            Record(arguments: ["-a", "-R", host, address], service: nil, what: "the address \(address) of \(host)")
        }
        if !addresses.isEmpty {
            records += services.map { service in
                Record(
                    arguments: Self.arguments(for: service, host: host), service: service,
                    what: "\(service.type) \"\(service.name)\"")
            }
        }
        state.withLock { state in
            guard !state.stopped else { return }
            if addresses.isEmpty, !state.warnedNoAddress {
                logger.error(
                    "\(label): no IPv4 address on \(interfaces.joined(separator: ", ")) (\(setting)): not announced")
            }
            state.warnedNoAddress = addresses.isEmpty
            reconcile(&state, with: records, tool: tool, host: host)
        }
    }

    /// Stops the publishers not wanted any more (or ended), then starts the wanted ones not running.
    private func reconcile(_ state: inout State, with records: [Record], tool: String, host: String) {
        let wanted = Set(records.map(\.arguments))
        let ended = state.running.filter { !$0.value.isRunning }
        if !ended.isEmpty, !state.warnedEnded {
            logger.warning(
                "\(label): avahi-publish ended: is avahi-daemon running and its D-Bus reachable? (trying again)")
            state.warnedEnded = true
        }
        for arguments in ended.keys { state.running[arguments] = nil }
        for (arguments, process) in state.running where !wanted.contains(arguments) {
            process.stop()
            state.running[arguments] = nil
            logger.debug("\(label): withdrew \(arguments.joined(separator: " ")) from mDNS")
        }
        for record in records where state.running[record.arguments] == nil {
            guard let process = launch([tool] + record.arguments, what: record.what) else { continue }
            state.running[record.arguments] = process
            if let service = record.service {
                let subtypes = service.subtypes.isEmpty ? "" : "; subtypes \(service.subtypes.joined(separator: " "))"
                logger.info(
                    """
                    \(label): announced "\(service.name)" (\(host):\(service.port)) by mDNS: \
                    \(service.txtStrings.joined(separator: " "))\(subtypes)
                    """)
            }
        }
    }

    private func launch(_ arguments: [String], what: String) -> ChildProcess? {
        do {
            return try ChildProcess(arguments, environment: environment)
        } catch {
            logger.error("\(label): could not start avahi-publish for \(what): \(error)")
            return nil
        }
    }

    /// Withdraws every record: each publisher is stopped (SIGTERM, then SIGKILL after 5 s) and
    /// reaped. Nothing is published afterwards.
    public func stop() {
        state.withLock { state in
            state.stopped = true
            for process in state.running.values { process.stop() }
            state.running = [:]
        }
    }
}
