import Foundation
public import Hummingbird
public import Prometheus
import Synchronization
public import TraitBridgeEngine
import TraitBridgeJSON

/// What an operator's tools ask the running bridge, unauthenticated and cheap, on the listener
/// `serve` already has: `GET /healthz` (the process answers), `GET /readyz` (broker connected and
/// registry open, with each source's bridge: 503 while not ready) and `GET /metrics` (Prometheus's
/// text format: the counters ``Bridge`` records through swift-metrics, and at each scrape the counts
/// the state keeps — devices by connectivity and source, messages per source, refusals by limit).
public final class OperationsEndpoints: Sendable {
    let bridge: Bridge
    let registry: PrometheusCollectorRegistry
    let version: String
    let commit: String
    /// What each scrape-time counter showed at the last scrape: the next one adds the difference.
    private let lastCounts = Mutex<[String: Int]>([:])

    public init(bridge: Bridge, registry: PrometheusCollectorRegistry, version: String, commit: String) {
        self.bridge = bridge
        self.registry = registry
        self.version = version
        self.commit = commit
    }

    /// Adds the three routes.
    public func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("healthz") { _, _ in Self.text(.ok, "ok\n", type: "text/plain; charset=utf-8") }
        router.get("readyz") { _, _ in self.readiness() }
        router.get("metrics") { _, _ in
            Self.text(.ok, self.scrape(), type: "text/plain; version=0.0.4; charset=utf-8")
        }
    }

    func readiness() -> Response {
        let (ready, body) = Self.readiness(
            of: bridge.snapshot, registryOpen: bridge.store != nil, countingDevices: false)
        return Self.text(
            ready ? .ok : .serviceUnavailable, JSONValue.object(body).serialized(.compact) + "\n",
            type: "application/json")
    }

    /// Whether the bridge is ready (broker connected, registry open) and the facts that say so:
    /// `ready`, `broker`, `registry`, `sourceBridges`; with `countingDevices`, also `devices` by
    /// connectivity and `waitingCommands` (a scan of the devices: not for a probe every second).
    static func readiness(
        of state: BridgeState, registryOpen: Bool, countingDevices: Bool
    ) -> (ready: Bool, body: JSONObject) {
        let facts = state.facts(countingDevices: countingDevices)
        let ready = facts.broker == .up && registryOpen
        var sources = JSONObject()
        for (name, status) in facts.sourceBridges.sorted(by: { $0.key < $1.key }) {
            sources.append(name, .string("\(status)"))
        }
        var body: JSONObject = [
            "ready": .bool(ready), "broker": .string("\(facts.broker)"),
            "registry": .string(registryOpen ? "open" : "none"), "sourceBridges": .object(sources),
        ]
        if countingDevices {
            var devices = JSONObject()
            for (name, count) in facts.devicesByConnectivity.sorted(by: { $0.key < $1.key }) {
                devices.append(name, .int(Int64(count)))
            }
            body.append("devices", .object(devices))
            body.append("waitingCommands", .int(Int64(facts.waitingCommands)))
        }
        return (ready, body)
    }

    /// The exposition text, after the scrape-time values are brought up to date.
    func scrape() -> String {
        let facts = bridge.snapshot.facts
        gauge("traitbridge_build_info", [("version", version), ("commit", commit)]).set(Int64(1))
        gauge("traitbridge_broker_connected").set(Int64(facts.broker == .up ? 1 : 0))
        gauge("traitbridge_commands_waiting").set(Int64(facts.waitingCommands))
        for (state, count) in facts.devicesByConnectivity {
            gauge("traitbridge_devices", [("connectivity", state)]).set(Int64(count))
        }
        for (source, count) in facts.devicesBySource {
            gauge("traitbridge_source_devices", [("source", source)]).set(Int64(count))
        }
        for (source, count) in facts.messagesBySource {
            advance("traitbridge_source_messages_received_total", ("source", source), to: count)
        }
        for (limit, count) in facts.refusals {
            advance("traitbridge_limit_refusals_total", ("limit", limit), to: count)
        }
        if let history = bridge.history?.totals {
            for (outcome, count) in [
                ("stored", history.stored), ("dropped", history.dropped), ("pruned", history.pruned),
            ] {
                advance("traitbridge_history_changes_total", ("outcome", outcome), to: count)
            }
            gauge("traitbridge_history_bytes").set(history.bytes)
        }
        if let bytes = Self.residentBytes() {
            gauge("traitbridge_resident_memory_bytes").set(Int64(bytes))
        }
        return registry.emitToString()
    }

    /// A gauge by its full name (no unit suffix, no help line: the exposition as it was).
    private func gauge(_ name: String, _ labels: [(String, String)] = []) -> Gauge {
        labels.isEmpty
            ? registry.makeGauge(descriptor: Self.descriptor(name))
            : registry.makeGauge(descriptor: Self.descriptor(name), labels: labels)
    }

    static func descriptor(_ name: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: "")
    }

    /// Brings a counter to `count` (the state's own count since start; counters only grow).
    private func advance(_ name: String, _ label: (String, String), to count: Int) {
        let key = "\(name)|\(label.0)=\(label.1)"
        let delta = lastCounts.withLock { last in
            defer { last[key] = max(count, last[key] ?? 0) }
            return count - (last[key] ?? 0)
        }
        let counter = registry.makeCounter(descriptor: Self.descriptor(name), labels: [label])
        if delta > 0 { counter.increment(by: Int64(delta)) }
    }

    /// The process's resident set (`/proc/self/statm`, in pages), or `nil` where it cannot be read.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        let (bytes, overflow) = pages.multipliedReportingOverflow(by: Int(sysconf(Int32(_SC_PAGESIZE))))
        return overflow ? nil : bytes
    }

    static func text(_ status: HTTPResponse.Status, _ body: String, type: String) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = type
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
