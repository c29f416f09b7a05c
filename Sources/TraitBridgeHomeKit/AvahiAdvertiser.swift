import Foundation
import Logging
import Synchronization
import TraitBridgeLocalBroker

#if canImport(Glibc)
    import Glibc
#endif

/// Announces the bridge as `_hap._tcp` through the machine's mDNS responder, Avahi, with its
/// `avahi-publish` tool (one process per record, over avahi-daemon's D-Bus; the system bus, or
/// the one `DBUS_SYSTEM_BUS_ADDRESS` names): a host name with the addresses of the configured
/// interfaces, and the service on that host with its TXT record, published again when it changes.
final class AvahiAdvertiser: Sendable {
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var addressPublishers: [ChildProcess] = []
        var servicePublisher: ChildProcess?
        var published: [String]?
        var stopped = false
        var warned = false
    }

    init(logger: Logger) { self.logger = logger }

    static func tool() -> String? {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] where access(directory + "/avahi-publish", X_OK) == 0 {
            return directory + "/avahi-publish"
        }
        return nil
    }

    /// The IPv4 addresses of `interfaces` now.
    static func addresses(of interfaces: [String]) -> [String] {
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

    /// Publishes (or re-publishes, when the TXT record changed or a publisher ended) the service
    /// `name` on `port`.
    func publish(name: String, port: Int, interfaces: [String], txt: [String: String]) {
        guard let tool = Self.tool() else {
            logger.error("HomeKit: avahi-publish is missing: apt-get install avahi-utils avahi-daemon (not announced)")
            return
        }
        let host = "traitbridge-" + String((txt["id"] ?? "").filter { $0 != ":" }.lowercased().suffix(6)) + ".local"
        let record = txt.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let arguments = ["-s", "-H", host, name, "_hap._tcp", String(port)] + record
        let ended = state.withLock { state in
            (state.servicePublisher.map { !$0.isRunning } ?? false)
                || state.addressPublishers.contains { !$0.isRunning }
        }
        if ended, !state.withLock({ $0.warned }) {
            logger.warning(
                "HomeKit: avahi-publish ended: is avahi-daemon running and its D-Bus reachable? (trying again)")
            state.withLock { $0.warned = true }
        }
        let (start, old): (Bool, [ChildProcess]) = state.withLock { state in
            guard !state.stopped, state.published != arguments || ended else { return (false, []) }
            state.published = arguments
            var old = state.servicePublisher.map { [$0] } ?? []
            state.servicePublisher = nil
            if ended {
                old += state.addressPublishers
                state.addressPublishers = []
            }
            return (true, old)
        }
        guard start else { return }
        for process in old { process.stop() }
        if state.withLock({ $0.addressPublishers.isEmpty }) {
            let addresses = Self.addresses(of: interfaces)
            guard !addresses.isEmpty else {
                logger.error(
                    "HomeKit: no IPv4 address on \(interfaces.joined(separator: ", ")) (homekit.mdns): not announced")
                return
            }
            for address in addresses {
                if let process = launch([tool, "-a", "-R", host, address], what: "the address \(address) of \(host)") {
                    state.withLock { $0.addressPublishers.append(process) }
                }
            }
        }
        if let process = launch([tool] + arguments, what: "_hap._tcp \"\(name)\"") {
            state.withLock { $0.servicePublisher = process }
            logger.info("HomeKit: announced \"\(name)\" (\(host):\(port)) by mDNS: \(record.joined(separator: " "))")
        }
    }

    private func launch(_ arguments: [String], what: String) -> ChildProcess? {
        do {
            return try ChildProcess(arguments)
        } catch {
            logger.error("HomeKit: could not start avahi-publish for \(what): \(error)")
            return nil
        }
    }

    /// Withdraws every record: each publisher is stopped (SIGTERM, then SIGKILL after 5 s) and reaped.
    func stop() {
        let processes = state.withLock { state -> [ChildProcess] in
            state.stopped = true
            defer {
                state.addressPublishers = []
                state.servicePublisher = nil
            }
            return state.addressPublishers + (state.servicePublisher.map { [$0] } ?? [])
        }
        for process in processes { process.stop() }
    }
}
