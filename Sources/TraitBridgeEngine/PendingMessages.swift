/// Messages that arrived before their device was known: the newest per topic, the oldest evicted
/// first when a bound is reached. Keeping, taking and evicting are O(1) (amortized): a cold start
/// keeps thousands of retained messages and takes each once the device list arrives, so a scan of
/// the queue per message made it quadratic.
struct PendingMessages: Sendable {
    private var entries: [String: (payload: [UInt8], sequence: Int)] = [:]
    /// Topics in the order they were first kept; an entry whose sequence no longer matches
    /// `entries` was taken or evicted, and is skipped.
    private var order: [(topic: String, sequence: Int)] = []
    private var head = 0
    private var nextSequence = 0
    /// The bytes of every kept payload.
    private(set) var bytes = 0

    var count: Int { entries.count }

    /// Keeps `payload` as the newest message of `topic`; a topic kept before keeps its place.
    mutating func keep(_ topic: String, _ payload: [UInt8]) {
        if let previous = entries[topic] {
            bytes += payload.count - previous.payload.count
            entries[topic] = (payload, previous.sequence)
            return
        }
        entries[topic] = (payload, nextSequence)
        order.append((topic, nextSequence))
        nextSequence += 1
        bytes += payload.count
    }

    /// Takes the message kept for `topic`, if any.
    mutating func take(_ topic: String) -> [UInt8]? {
        guard let entry = entries.removeValue(forKey: topic) else { return nil }
        bytes -= entry.payload.count
        compact()
        return entry.payload
    }

    /// Drops the oldest kept message and returns its topic.
    mutating func evictOldest() -> String? {
        while head < order.count {
            let (topic, sequence) = order[head]
            head += 1
            if let entry = entries[topic], entry.sequence == sequence {
                entries.removeValue(forKey: topic)
                bytes -= entry.payload.count
                compact()
                return topic
            }
        }
        return nil
    }

    /// The kept topics under `prefix`, oldest first (a scan: for a device that can have several).
    func topics(under prefix: String) -> [String] {
        order[head...].compactMap { item in
            entries[item.topic]?.sequence == item.sequence && item.topic.hasPrefix(prefix) ? item.topic : nil
        }
    }

    /// Drops the skipped part of `order` once it is most of it (amortized O(1) per operation).
    private mutating func compact() {
        let live = entries.count
        guard order.count > 64, order.count - live > live + 64 else { return }
        order = order[head...].filter { entries[$0.topic]?.sequence == $0.sequence }
        head = 0
    }
}
