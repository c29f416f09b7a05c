import FoundationEssentials
import Synchronization
import TraitBridgeMQTT

/// Broker traffic held, in order, while the registry is restored: the network thread goes on
/// reading (a restart's retained device list can be tens of MB) instead of waiting for the state
/// lock, and what it read is handled once the devices are back, as if it had arrived then.
///
/// Closed until ``open(handing:)``; after that every ``hold(_:)`` passes its item straight back.
final class TrafficGate: Sendable {
    /// What the network thread delivers, with when it came.
    enum Item: Sendable {
        case message(MQTTMessage, Date)
        case event(MQTTConnectionEvent, Date)
    }

    /// Read on every message without the lock; set (inside it) only once nothing is held.
    private let isOpen: Atomic<Bool>
    private let held = Mutex<[Item]>([])

    init(isOpen: Bool) {
        self.isOpen = Atomic(isOpen)
    }

    var isOpened: Bool { isOpen.load(ordering: .acquiring) }

    /// Keeps `item` while the gate is closed (returns `nil`); once it is open, hands it back for
    /// the caller to handle now.
    func hold(_ item: Item) -> Item? {
        if isOpen.load(ordering: .acquiring) { return item }
        return held.withLock { held -> Item? in
            // Opened meanwhile: everything held before has been handed on, so this goes now.
            if isOpen.load(ordering: .acquiring) { return item }
            held.append(item)
            return nil
        }
    }

    /// Hands on everything held, oldest first, including what arrives while it is being handed
    /// on, then opens: nothing held is ever overtaken by what comes after it.
    func open(handing hand: (Item) -> Void) {
        while true {
            let batch = held.withLock { held -> [Item] in
                if held.isEmpty { isOpen.store(true, ordering: .releasing) }
                defer { held = [] }
                return held
            }
            if batch.isEmpty { return }
            for item in batch { hand(item) }
        }
    }
}
