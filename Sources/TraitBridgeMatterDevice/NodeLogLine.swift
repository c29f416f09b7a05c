/// A line the node asks its edge to log: the node is a pure value and never logs itself, so what it
/// saw (a datagram dropped, a bound reached, a PASE attempt's outcome) comes out as an effect. It
/// exists so the tests read exactly what an operator would, and the edge maps it to swift-log.
/// No line carries a passcode, a verifier, a salt or a key.
public struct NodeLogLine: Sendable, Hashable, CustomStringConvertible {
    /// How much an operator needs to see it (swift-log's levels of the same names).
    public enum Level: Sendable, Hashable, Comparable {
        case debug, info, notice, warning
    }

    public var level: Level
    public var message: String
    /// Keys prefixed `tb.` (`tb.matter.peer`, `tb.matter.session`, …), values already rendered.
    public var metadata: [String: String]

    public init(_ level: Level, _ message: String, metadata: [String: String] = [:]) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }

    public var description: String {
        let rendered = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "\(level) \(message)" + (rendered.isEmpty ? "" : " [\(rendered)]")
    }
}
