import FoundationEssentials

extension Date {
    /// This date moved by `duration` (sub-second parts kept).
    func adding(_ duration: Duration) -> Date {
        let (seconds, attoseconds) = duration.components
        return addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }
}
