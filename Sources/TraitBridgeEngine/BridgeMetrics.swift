import CoreMetrics
import Synchronization
import TraitBridgeModel

/// The running bridge's counters and histograms, recorded where the work happens (``Bridge``) through
/// swift-metrics: `serve` bootstraps Prometheus and `/metrics` shows them; elsewhere (tests, tools)
/// they go nowhere. Made once, so the message path pays an increment, never a lookup. What the
/// state already counts (refusals, devices, messages per source) is read at scrape time instead
/// (``BridgeFacts``). Names follow Prometheus's conventions (`_total`, units in the name).
final class BridgeMetrics: Sendable {
    let received = Counter(label: "traitbridge_mqtt_messages_received_total")
    let published = Counter(label: "traitbridge_mqtt_messages_published_total")
    /// From a message's arrival under the state lock to its effects being ready (not performed).
    let handling = CoreMetrics.Timer(label: "traitbridge_message_handling_seconds")
    let registryWrites = CoreMetrics.Timer(label: "traitbridge_registry_write_seconds")
    let registryFailures = Counter(label: "traitbridge_registry_write_failures_total")
    let connects = Counter(label: "traitbridge_mqtt_connects_total")
    let disconnects = Counter(label: "traitbridge_mqtt_disconnects_total")
    let commandLatency = CoreMetrics.Timer(label: "traitbridge_command_duration_seconds")
    /// One counter per command outcome and per cloud-link outcome, made when first seen.
    private let outcomes = Mutex<[String: Counter]>([:])

    /// Records the time since `started` (a monotonic clock's reading) on `timer`.
    static func record(_ timer: CoreMetrics.Timer, since started: ContinuousClock.Instant) {
        let elapsed = (ContinuousClock.now - started).components
        let nanoseconds = elapsed.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard elapsed.seconds >= 0, !nanoseconds.overflow else { return }
        timer.recordNanoseconds(nanoseconds.partialValue &+ elapsed.attoseconds / 1_000_000_000)
    }

    func command(_ outcome: CommandOutcome) {
        counter("traitbridge_commands_total", ("outcome", outcome.status)).increment()
        if let seconds = outcome.seconds, seconds >= 0, let nanoseconds = FiniteNumber.int64(rounding: seconds * 1e9) {
            commandLatency.recordNanoseconds(nanoseconds)
        }
    }

    func linkRequest(link: String, intent: String, outcome: String, since started: ContinuousClock.Instant) {
        counter("traitbridge_cloud_link_requests_total", ("link", link), ("intent", intent), ("outcome", outcome))
            .increment()
        Self.record(
            CoreMetrics.Timer(label: "traitbridge_cloud_link_request_duration_seconds", dimensions: [("link", link)]),
            since: started)
    }

    private func counter(_ label: String, _ dimensions: (String, String)...) -> Counter {
        let key = label + dimensions.map { "|\($0.0)=\($0.1)" }.joined()
        return outcomes.withLock { made in
            if let counter = made[key] { return counter }
            let counter = Counter(label: label, dimensions: dimensions)
            made[key] = counter
            return counter
        }
    }
}
