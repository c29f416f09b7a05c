import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterInteraction

/// The node's orderly stop (Core §11.1.6.2, Basic Information's ShutDown event).
///
/// connectedhomeip's apps call `Server::GenerateShutDownEvent` on SIGTERM or SIGINT before the event
/// loop stops; Basic Information's `OnShutDown` logs the event there. Its event buffers live in RAM and
/// only the event-number counter is persisted, so after a restart nobody can read the ShutDown event
/// back. This node's ``EventLog`` is in memory too. What it can do is report the event to its
/// subscribers before the socket closes.
extension MatterNode {
    /// Records ShutDown (0x0028/0x01, priority CRITICAL, no fields) and reports it at once to every live
    /// subscription whose event paths take it. This ignores the subscription's minimum interval, since no
    /// later report would come. The caller sends the effects, then stops serving. Nobody waits for the
    /// acks, and the event is gone with the process.
    public mutating func shutDown(
        now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) -> [Effect] {
        defer { effects = [] }
        let number = events.nextNumber
        events.record(
            endpoint: 0, cluster: ClusterID.basicInformation, event: 0x01, priority: .critical,
            data: .contextStructure([:]), at: now)
        var reported = 0
        for id in interactions.subscriptions.map(\.id) {
            guard let index = interactions.subscriptionIndex(id) else { continue }
            let subscription = interactions.subscriptions[index]
            guard subscription.isLive else { continue }
            let newEvents = events(subscription.eventPaths, from: subscription.nextEvent, for: subscription.subject)
            guard let last = newEvents.last else { continue }
            interactions.subscriptions[index].nextEvent = last.number &+ 1
            deliver([], events: newEvents.map(\.report), to: index, updating: [:], now: now, using: &generator)
            reported += 1
        }
        log(.notice, "Matter: shutting down: ShutDown (event \(number)) reported to \(reported) subscription(s)")
        return effects
    }
}
