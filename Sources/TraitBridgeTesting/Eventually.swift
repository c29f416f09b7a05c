import Foundation
import Synchronization

/// Polls `condition` every 10 ms until it holds or `timeout` passes; returns whether it held.
/// Integration tests wait with this instead of sleeping a fixed time (bounded in count and time).
public func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return condition()
}

/// A thread-safe list that callbacks append to and tests read.
public final class Recorder<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    public init() {}

    public func append(_ element: Element) { storage.withLock { $0.append(element) } }
    public var all: [Element] { storage.withLock { $0 } }
    public func removeAll() { storage.withLock { $0.removeAll() } }
}
