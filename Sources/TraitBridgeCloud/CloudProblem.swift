public import TraitBridgeJSON

/// One problem found in a Cloud-to-cloud payload: where (a JSON path into the payload) and what.
///
/// Printed as `devices[3].traits[1]: unknown trait 'action.devices.traits.Foo'`. A problem that
/// ``rejectsDevice`` stopped that one device from being imported; the others never are affected.
public struct CloudProblem: Sendable, Hashable, CustomStringConvertible {
    public var path: JSONPath
    public var message: String
    /// The device at ``path`` was not imported (a missing id, type or name, a duplicate id…);
    /// otherwise it was imported without the offending part.
    public var rejectsDevice: Bool

    public init(_ path: JSONPath, _ message: String, rejectsDevice: Bool = false) {
        self.path = path
        self.message = message
        self.rejectsDevice = rejectsDevice
    }

    public var description: String { "\(path): \(message)" + (rejectsDevice ? " (device not imported)" : "") }
}

/// A Cloud-to-cloud payload that cannot be read at all: not JSON, or not the intent it should be.
public enum CloudError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not JSON; line and column of the first error.
    case notJSON(source: String, line: Int, column: Int, reason: String)
    /// JSON, but not a payload of this kind.
    case wrongShape(source: String, path: JSONPath, expected: String)

    public var description: String {
        switch self {
        case .notJSON(let source, let line, let column, let reason):
            "\(source):\(line):\(column): not JSON: \(reason)"
        case .wrongShape(let source, let path, let expected):
            "\(source): \(path): expected \(expected)"
        }
    }
}
