import FoundationEssentials
import TraitBridgeJSON

/// The cloud links the bridge calls (partner fulfillment URLs), as the engine follows them: which
/// are configured, which fail (since when, why), how long each link's devices may go unmentioned,
/// when their staleness was last swept, and the numbering of the EXECUTE requests sent over them.
///
/// The one owner of that bookkeeping; it reads no clock (every event carries `now`) and does no
/// I/O. What a change means for the devices (their connectivity) is the caller's to apply.
struct CloudLinkSupervisor: Sendable {
    /// A link whose last request failed: since when it has failed, and its newest error.
    struct Failure: Sendable, Hashable {
        var since: Date
        var error: String
    }

    /// How long a link's device may go unmentioned by its answers when the link gives no budget.
    static let defaultStaleness: Duration = .seconds(180)
    /// The least time between two staleness sweeps.
    static let sweepInterval: TimeInterval = 1

    private(set) var links: Set<String>
    private var failures: [String: Failure] = [:]
    private var staleness: [String: Duration] = [:]
    private var lastSweep: Date?
    private var requestCount = 0

    init(links: Set<String> = []) {
        self.links = links
    }

    var isEmpty: Bool { links.isEmpty }
    func contains(_ link: String) -> Bool { links.contains(link) }
    func failure(of link: String) -> Failure? { failures[link] }

    /// The links are now `links`: returns those that went (sorted; their failures are forgotten)
    /// and whether the set changed (the health topic says which links there are).
    mutating func setLinks(
        _ newLinks: Set<String>, staleness: [String: Duration]
    ) -> (removed: [String], changed: Bool) {
        self.staleness = staleness
        let removed = links.subtracting(newLinks).sorted()
        for link in removed { failures.removeValue(forKey: link) }
        let changed = links != newLinks
        links = newLinks
        return (removed, changed)
    }

    /// A good answer from `link`: `true` when it had been failing (its health changes).
    mutating func succeeded(_ link: String) -> Bool {
        failures.removeValue(forKey: link) != nil
    }

    /// A failed request to `link`: since when it has failed (its first failure in a row) and
    /// whether what the health topic says of it changed (a new error).
    mutating func failed(_ link: String, error: String, now: Date) -> (since: Date, isChanged: Bool) {
        let since = failures[link]?.since ?? now
        let isChanged = failures[link]?.error != error
        failures[link] = Failure(since: since, error: error)
        return (since, isChanged)
    }

    /// Whether a staleness sweep is due at `now` (at most one a ``sweepInterval``, and only with
    /// links); when it is, `now` is taken as the time of this sweep.
    mutating func takeSweep(now: Date) -> Bool {
        guard !links.isEmpty, lastSweep.map({ now.timeIntervalSince($0) >= Self.sweepInterval }) ?? true else {
            return false
        }
        lastSweep = now
        return true
    }

    /// Whether a device of `link` last mentioned at `lastAnswer` is stale at `now`: the link is
    /// configured and not failing (a failure already says why), and its budget has passed.
    func isStale(link: String, lastAnswer: Date, now: Date) -> Bool {
        guard links.contains(link), failures[link] == nil else { return false }
        return now.timeIntervalSince(lastAnswer) > Double(budget(of: link).components.seconds)
    }

    /// How long a device of `link` may go unmentioned.
    func budget(of link: String) -> Duration { staleness[link] ?? Self.defaultStaleness }

    /// The id of the next EXECUTE request sent over a link (also its follow-up token).
    mutating func nextRequestID() -> String {
        requestCount += 1
        return "tb-link-\(requestCount)"
    }

    /// Each link for the health topic, sorted: its devices (`deviceCount`), and whether it
    /// fails, since when and why.
    func health(deviceCount: (String) -> Int) -> JSONObject {
        var object = JSONObject()
        for link in links.sorted() {
            var entry = JSONObject()
            entry.append("devices", .int(Int64(deviceCount(link))))
            if let failure = failures[link] {
                entry.append("state", "failing")
                entry.append("since", .string(failure.since.formatted(.iso8601)))
                entry.append("error", .string(failure.error))
            } else {
                entry.append("state", "ok")
            }
            object.append(link, .object(entry))
        }
        return object
    }
}
