import TraitBridgeMatterCommissioning
import TraitBridgeMatterInteraction
import TraitBridgeMatterTransport

/// The interaction model's state between messages (Core §8): reports sent a chunk at a time, each
/// after the client's StatusResponse; exchanges a TimedRequest opened; and the subscriptions with
/// what each last reported. It exists so the node's handlers stay stateless functions of it, and so
/// a closed session or exchange takes exactly its own entries with it.
struct InteractionState: Sendable {
    /// What follows the last chunk of a report.
    enum AfterReport: Sendable, Equatable {
        /// A read: nothing (its last chunk asked no answer).
        case done
        /// A subscription's priming report: SubscribeResponse, then the subscription is live.
        case subscribeResponse(subscriptionID: UInt32)
        /// A subscription's later report (or keep-alive): the client's StatusResponse ends it.
        case delivered(subscriptionID: UInt32)
    }

    /// A report whose chunks go one per StatusResponse.
    struct PendingReport: Sendable {
        var remaining: [[UInt8]]
        let after: AfterReport
    }

    /// One subscription (Core §8.5): its paths, its intervals and what it last reported.
    struct Subscription: Sendable {
        let id: UInt32
        let session: SessionKey
        /// Who subscribed, as access control sees them: each report is checked again (the ACL may change).
        let subject: AccessSubject
        let fabricIndex: UInt8
        let peerNodeID: UInt64
        let paths: [AttributePath]
        let isFabricFiltered: Bool
        let minInterval: Duration
        let maxInterval: Duration
        /// Set when the SubscribeResponse went out.
        var isLive = false
        var lastReport: ContinuousClock.Instant
        /// The node's change stamp the last report was made at.
        var seenChangeCount: UInt64
        /// The data model's change count then: clusters changed after it are read again.
        var seenDataCount: UInt64 = 0
        /// The event paths subscribed to, and the number the next event reported must have at least.
        let eventPaths: [EventPath]
        var nextEvent: UInt64 = 0
        /// Each reported attribute's encoded value, so a later report carries only what changed.
        var reported: [ConcreteAttributePath: [UInt8]] = [:]
        /// The exchange of a report not yet answered (the SubscribeRequest's own while priming).
        var inFlight: ExchangeKey?
    }

    var pending: [ExchangeKey: PendingReport] = [:]
    /// Commands handed on to a device whose answer waits for the device's (or the deadline), by token.
    var deferred: [UInt64: DeferredInvoke] = [:]
    private var lastDeferredToken: UInt64 = 0

    /// An invoke whose InvokeResponse waits: its exchange, its command and when to answer SUCCESS anyway.
    struct DeferredInvoke: Sendable {
        let exchange: ExchangeKey
        let path: CommandPath
        let commandRef: UInt16?
        let deadline: ContinuousClock.Instant
    }

    /// A new deferred invoke's token (rising, never 0).
    mutating func deferInvoke(_ invoke: DeferredInvoke) -> UInt64 {
        lastDeferredToken &+= 1
        if lastDeferredToken == 0 { lastDeferredToken = 1 }
        deferred[lastDeferredToken] = invoke
        return lastDeferredToken
    }
    /// Exchanges a TimedRequest opened, until when the action must come.
    var timed: [ExchangeKey: ContinuousClock.Instant] = [:]
    var subscriptions: [Subscription] = []
    private var lastSubscriptionID: UInt32 = 0

    /// When a subscription must next be looked at: its keep-alive, or (when something changed since its
    /// last report) the end of its minimum interval. `changeCount` is the node's change stamp.
    func nextDeadline(changeCount: UInt64) -> ContinuousClock.Instant? {
        let reports = subscriptions.filter { $0.isLive && $0.inFlight == nil }.map { subscription in
            subscription.seenChangeCount != changeCount
                ? subscription.lastReport + subscription.minInterval
                : subscription.lastReport + subscription.maxInterval
        }
        return (reports + deferred.values.map(\.deadline)).min()
    }

    /// A fresh subscription ID (never 0, not one in use).
    mutating func newSubscriptionID(using generator: inout some RandomNumberGenerator) -> UInt32 {
        if lastSubscriptionID == 0 { lastSubscriptionID = UInt32.random(in: 1 ... .max / 2, using: &generator) }
        repeat {
            lastSubscriptionID &+= 1
        } while lastSubscriptionID == 0
            || subscriptions.contains { $0.id == lastSubscriptionID }
        return lastSubscriptionID
    }

    func subscriptionIndex(_ id: UInt32) -> Int? { subscriptions.firstIndex { $0.id == id } }

    /// The exchange is closed: what waited on it is dropped; a subscription whose report it carried
    /// is ended (the client did not answer: Core §8.5.3 ends it).
    mutating func exchangeClosed(_ exchange: ExchangeKey) -> [UInt32] {
        pending[exchange] = nil
        timed[exchange] = nil
        deferred = deferred.filter { $0.value.exchange != exchange }
        let ended = subscriptions.filter { $0.inFlight == exchange }.map(\.id)
        subscriptions.removeAll { ended.contains($0.id) }
        return ended
    }

    /// The session is gone: every entry of it goes.
    mutating func sessionClosed(_ session: SessionKey) {
        pending = pending.filter { $0.key.session != session }
        timed = timed.filter { $0.key.session != session }
        deferred = deferred.filter { $0.value.exchange.session != session }
        subscriptions.removeAll { $0.session == session }
    }
}
