public import FoundationEssentials

/// Wrong passwords on a login page, held back per client so that a stranger's guesses never lock
/// the owner out (a lock for everyone after N failures would let anyone who reaches the page keep
/// the owner from signing in). Each client address and each (address, account) pair gets a few
/// free tries, then a wait that doubles with every further failure, up to a cap. When failures
/// from everywhere together pass a global rate, only addresses that failed recently are held back:
/// one that has not failed may always try. Pure: the time comes with each call.
public struct LoginThrottle: Sendable {
    /// The numbers; the defaults suit a login page on the internet.
    public struct Policy: Sendable {
        /// Failures before the first wait, per address and per (address, account).
        public var freeFailures = 3
        /// The first wait; each further failure doubles it.
        public var firstDelay: TimeInterval = 1
        public var maxDelay: TimeInterval = 900
        /// A client's failures are forgotten this long after its last one.
        public var forgetAfter: TimeInterval = 86_400
        /// Failures per minute from everywhere above which failing addresses wait for the minute.
        public var globalFailuresPerMinute = 30
        /// Clients remembered at most; the one whose last failure is oldest goes first.
        public var maxClients = 10_000

        public init() {}
    }

    /// What to tell a login attempt before its password is checked.
    public enum Decision: Sendable, Hashable {
        case allowed
        /// Come back in this many seconds; `scope` says whose failures made it wait.
        case wait(seconds: Int, scope: Scope)
    }

    public enum Scope: String, Sendable, Hashable {
        /// This address with this account name.
        case client
        /// This address, whatever account it tried.
        case address
        /// Everyone's failures together passed the global rate (this address failed too).
        case global
    }

    private enum Key: Hashable {
        case address(String)
        case pair(String, String)
    }

    private struct Entry {
        var failures: Int
        var last: Date
    }

    public let policy: Policy
    private var entries: [Key: Entry] = [:]
    /// The times of the latest failures from everywhere, at most `globalFailuresPerMinute`.
    private var recent: [Date] = []
    public private(set) var failureCount = 0
    public private(set) var waitCount = 0
    /// Clients forgotten early because `maxClients` were remembered.
    public private(set) var evictionCount = 0

    public init(policy: Policy = Policy()) { self.policy = policy }

    /// Whether `address` may try `account` now (counted when it must wait).
    public mutating func check(address: String, account: String, now: Date) -> Decision {
        let keys = Self.keys(address: address, account: account)
        var longest: (seconds: TimeInterval, scope: Scope)?
        for (key, scope) in zip(keys, [Scope.address, .client]) {
            guard let entry = current(key, now: now) else { continue }
            let remaining = entry.last.timeIntervalSince1970 + delay(after: entry.failures) - now.timeIntervalSince1970
            if remaining > 0, remaining > (longest?.seconds ?? 0) { longest = (remaining, scope) }
        }
        if longest == nil, current(keys[0], now: now) != nil, recent.count >= policy.globalFailuresPerMinute,
            let oldest = recent.first, now.timeIntervalSince(oldest) < 60
        {
            longest = (60 - now.timeIntervalSince(oldest), .global)
        }
        guard let longest else { return .allowed }
        waitCount += 1
        return .wait(seconds: max(1, Int(longest.seconds.rounded(.up))), scope: longest.scope)
    }

    /// A wrong password from `address` for `account`.
    public mutating func failed(address: String, account: String, now: Date) {
        failureCount += 1
        for key in Self.keys(address: address, account: account) {
            var entry = current(key, now: now) ?? Entry(failures: 0, last: now)
            entry.failures += 1
            entry.last = now
            if entries[key] == nil { makeRoom() }
            entries[key] = entry
        }
        recent.append(now)
        if recent.count > policy.globalFailuresPerMinute {
            recent.removeFirst(recent.count - policy.globalFailuresPerMinute)
        }
    }

    /// The right password: this client starts afresh.
    public mutating func succeeded(address: String, account: String) {
        for key in Self.keys(address: address, account: account) { entries[key] = nil }
    }

    /// How many clients are remembered (bounded by `maxClients`).
    public var rememberedCount: Int { entries.count }

    /// The wait after `failures` failures.
    func delay(after failures: Int) -> TimeInterval {
        guard failures > policy.freeFailures else { return 0 }
        let doublings = min(failures - policy.freeFailures - 1, 30)
        return min(policy.firstDelay * Double(1 << doublings), policy.maxDelay)
    }

    private mutating func current(_ key: Key, now: Date) -> Entry? {
        guard let entry = entries[key] else { return nil }
        guard now.timeIntervalSince(entry.last) < policy.forgetAfter else {
            entries[key] = nil
            return nil
        }
        return entry
    }

    private mutating func makeRoom() {
        guard entries.count >= policy.maxClients,
            let oldest = entries.min(by: { $0.value.last < $1.value.last })?.key
        else { return }
        entries[oldest] = nil
        evictionCount += 1
    }

    /// The account name as compared: case and surrounding spaces aside, at most 64 characters (a
    /// guess is not a reason to keep a long text).
    private static func keys(address: String, account: String) -> [Key] {
        var name = Substring(account)
        while name.first == " " { name = name.dropFirst() }
        while name.last == " " { name = name.dropLast() }
        let key = String(name.lowercased().prefix(64))
        return [.address(address), .pair(address, key)]
    }
}
