/// The effects of the broker messages one network read brought, held until it is handed on (or
/// ``limit`` messages): their registry rows written in one transaction, not one each — and a retained
/// topic published once when messages the broker kept from before change it several times.
///
/// A retained message is old news: nobody saw the states it passes through, so only the last one a
/// batch makes of a topic is worth sending. A restart's value and availability of a device (two retained
/// messages, side by side) give its state once, not twice: 10 000 publications fewer through the broker
/// at 10 000 devices. A live message's publications are all sent: they are transitions someone may act
/// on (a motion sensor's `true` then `false`).
struct DeferredEffects {
    static let limit = 64

    private var held = BridgeEffects()
    private(set) var messages = 0
    /// Retained publications made from retained messages, by topic: where the last one is in `held`.
    private var replayed: [String: Int] = [:]
    /// Publications in `held` a later one from a retained message made stale.
    private var superseded: Set<Int> = []

    var isFull: Bool { messages >= Self.limit }

    /// Adds one message's effects after the others. `fromRetained`: the message was retained (sent
    /// because of a subscription, not published now).
    mutating func add(_ effects: consuming BridgeEffects, fromRetained: Bool) {
        if fromRetained {
            for (offset, publication) in effects.publications.enumerated()
            where publication.isRetained && publication.channel == nil {
                let index = held.publications.count + offset
                if let earlier = replayed.updateValue(index, forKey: publication.topic) { superseded.insert(earlier) }
            }
        }
        // The first (often the only one): its effects are taken as they are, not copied.
        if messages > 0 { held.append(contentsOf: effects) } else { held = effects }
        messages += 1
    }

    /// What is held, without the stale publications; nil when nothing is.
    mutating func take() -> BridgeEffects? {
        guard messages > 0 else { return nil }
        var taken = BridgeEffects()
        swap(&taken, &held)
        if !superseded.isEmpty {
            taken.publications = taken.publications.enumerated().filter { !superseded.contains($0.offset) }.map(
                \.element)
        }
        messages = 0
        replayed.removeAll(keepingCapacity: true)
        superseded.removeAll(keepingCapacity: true)
        return taken
    }
}
