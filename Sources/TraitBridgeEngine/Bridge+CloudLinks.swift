import Foundation
import Synchronization
public import TraitBridgeModel

/// What the cloud-link clients tell the running bridge (answers, pushes, failures) and how it
/// reaches them (each link's EXECUTE sender): each call is one event of the state machine.
extension Bridge {
    /// Registers the client that sends `link`'s EXECUTE requests (called inside the state lock:
    /// it must only hand the request on).
    public func sendLinkRequests(for link: String, with sender: @escaping @Sendable (LinkRequest) -> Void) {
        linkSenders.withLock { $0[link] = sender }
    }

    /// A link's SYNC answer arrived (see ``BridgeState/importLinkSync(_:link:now:)``).
    public func linkSynced(_ body: [UInt8], link: String) {
        state.withLock { perform($0.importLinkSync(body, link: link, now: Date())) }
    }

    /// A link's QUERY or EXECUTE answer arrived.
    public func linkAnswered(_ body: [UInt8], link: String) {
        state.withLock { perform($0.applyLinkAnswer(body, link: link, now: Date())) }
    }

    /// A link's partner pushed Report State (with notifications, perhaps) to the local Home Graph.
    public func linkPushed(_ body: [UInt8], link: String) {
        state.withLock { perform($0.applyLinkPush(body, link: link, now: Date())) }
    }

    /// A link's answer to the EXECUTE request `requestID` arrived: it settles that command.
    public func linkExecuted(_ body: [UInt8], link: String, requestID: String) {
        state.withLock { perform($0.applyLinkExecute(body, link: link, requestID: requestID, now: Date())) }
    }

    /// A link's EXECUTE request got no answer: its command ends with `error`.
    public func linkRequestFailed(_ requestID: String, link: String, error: String) {
        state.withLock { perform($0.linkRequestFailed(requestID, link: link, error: error, now: Date())) }
    }

    /// The links now configured (added or removed while the bridge runs).
    public func setCloudLinks(_ links: Set<String>, staleness: [String: Duration] = [:]) {
        state.withLock { perform($0.setCloudLinks(links, staleness: staleness, now: Date())) }
    }

    /// A link's request failed; its devices' traits take `state` with the link's reason.
    public func linkFailed(_ link: String, error: String, state connectivity: TraitConnectivityState) {
        state.withLock { perform($0.linkFailed(link, error: error, state: connectivity, now: Date())) }
    }

    /// Counts one request to a link's partner (`/metrics`): its intent, whether it was answered,
    /// and how long it took from `started`.
    public func countLinkRequest(link: String, intent: String, succeeded: Bool, since started: ContinuousClock.Instant)
    {
        metrics.linkRequest(link: link, intent: intent, outcome: succeeded ? "answered" : "failed", since: started)
    }

    /// The cloud ids of a link's devices.
    public func linkDeviceIDs(_ link: String) -> [String] { state.withLock { $0.linkDeviceIDs(link) } }
}
