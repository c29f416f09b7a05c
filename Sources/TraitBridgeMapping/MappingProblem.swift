public import TraitBridgeJSON

/// One problem in a file under `mappings/`: where it is and what is wrong.
///
/// Printed as `file:line:col: path: message`, the form editors and CI logs link to.
public struct MappingProblem: Sendable, Hashable, CustomStringConvertible {
    /// The file, as given to the loader (relative when the caller passed a relative folder).
    public var file: String
    public var location: SourceLocation
    /// The JSON path of the offending value (`$` for the whole file).
    public var path: JSONPath
    public var message: String

    public init(file: String, location: SourceLocation, path: JSONPath, message: String) {
        self.file = file
        self.location = location
        self.path = path
        self.message = message
    }

    public var description: String { "\(file):\(location): \(path): \(message)" }
}

/// Loading `mappings/` failed; every problem found is listed, not only the first.
public struct MappingError: Error, Sendable, CustomStringConvertible {
    public var problems: [MappingProblem]

    public init(problems: [MappingProblem]) { self.problems = problems }

    public var description: String {
        problems.map(\.description).joined(separator: "\n")
            + "\n\(problems.count) problem\(problems.count == 1 ? "" : "s") in mappings; fix them and run `traitbridge mappings validate` again"
    }
}
