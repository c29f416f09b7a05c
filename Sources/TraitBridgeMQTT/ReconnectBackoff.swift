/// The delay before the next reconnect attempt: exponential with full jitter, capped, reset after a
/// successful connection. A value type with no clock or I/O, so it is tested directly.
///
/// Reconnecting never gives up (LESSONS: a client that stops retrying after 30 s never recovers).
public struct ReconnectBackoff: Sendable {
    public var initialDelay: Duration
    public var maximumDelay: Duration
    public private(set) var attempt = 0

    public init(initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(30)) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// The upper bound of the next delay (before jitter): initial × 2^attempt, capped.
    public var currentCeiling: Duration {
        let factor = Double(1 << min(attempt, 20))
        let ceiling = initialDelay * factor
        return ceiling < maximumDelay ? ceiling : maximumDelay
    }

    /// The next delay: uniformly random between half the ceiling and the ceiling ("equal jitter"),
    /// so clients that lost the broker together do not come back in lock step.
    public mutating func nextDelay(using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = currentCeiling
        attempt += 1
        let fraction = Double.random(in: 0.5...1.0, using: &generator)
        return ceiling * fraction
    }

    public mutating func nextDelay() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return nextDelay(using: &generator)
    }

    /// Call when a connection was accepted.
    public mutating func reset() { attempt = 0 }
}

/// Notices another client using our client id: the broker then drops us every time the other one
/// connects, and both keep reconnecting (home-assistant/core #98272). MQTT 5 says so with reason
/// 0x8E (session taken over); for 3.1.1 the pattern of short-lived connections gives it away.
public struct KickOffDetector: Sendable {
    /// Connections shorter than this count as "dropped right after connecting".
    public var shortConnection: Duration = .seconds(10)
    /// How many short connections in a row make a suspected kick-off loop.
    public var threshold = 3
    public private(set) var shortConnectionsInARow = 0

    public init() {}

    /// Records a connection that lasted `duration`; returns true when a kick-off loop is suspected
    /// (once, when the count reaches the threshold).
    public mutating func connectionEnded(after duration: Duration, sessionTakenOver: Bool) -> Bool {
        if sessionTakenOver { return true }
        if duration < shortConnection {
            shortConnectionsInARow += 1
            return shortConnectionsInARow == threshold
        }
        shortConnectionsInARow = 0
        return false
    }
}
