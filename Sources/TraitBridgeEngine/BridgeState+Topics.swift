import FoundationEssentials
import TraitBridgeModel

/// The bridge's own topics read back: requests, commands; and messages kept for devices not known yet.
extension BridgeState {
    // MARK: Helpers

    /// `<prefix>/bridge/request/<operation>` (MQTT 5, answered on its Response Topic) or
    /// `<prefix>/bridge/request/<operation>/<correlation>` (MQTT 3.1.1, answered on `…/response/…`).
    func bridgeRequest(_ topic: String) -> (operation: String, correlation: String?)? {
        let prefix = configuration.prefix + "/bridge/request/"
        guard topic.hasPrefix(prefix) else { return nil }
        let parts = topic.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        return (String(parts[0]), parts.count == 2 ? String(parts[1]) : nil)
    }

    func commandTarget(_ topic: String) -> DeviceID? {
        let prefix = configuration.devicesTopicPrefix
        guard topic.hasPrefix(prefix), topic.hasSuffix("/set") else { return nil }
        let middle = topic.dropFirst(prefix.count).dropLast(4)
        guard !middle.contains("/") else { return nil }
        return try? DeviceID(String(middle))
    }

    /// Keeps the newest message of a topic whose device is not known yet (what the bounds
    /// refused to make room is counted and said).
    mutating func keepPending(topic: String, payload: [UInt8], effects: inout BridgeEffects) {
        for refusal in sources.keepPending(topic, payload, limits: configuration.limits) {
            refuseAtLimit(refusal.kind, topic: refusal.topic, refusal.detail, effects: &effects)
        }
    }
}
