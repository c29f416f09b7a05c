/// Why a JSON text could not be parsed, and where.
///
/// Produced by ``JSONDocument/parse(_:maxDepth:)``. The location is 1-based: `line` counts `\n`,
/// `column` counts Unicode scalars within the line, so it matches what an editor shows.
public struct JSONParseError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, in json-c's words or ours ("unexpected end of input", "nesting too deep").
    public var reason: String
    /// 1-based line of the first offending character.
    public var line: Int
    /// 1-based column (in Unicode scalars) of the first offending character.
    public var column: Int
    /// Byte offset of the first offending character.
    public var byteOffset: Int

    public init(reason: String, line: Int, column: Int, byteOffset: Int) {
        self.reason = reason
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
    }

    public var description: String { "\(line):\(column): invalid JSON: \(reason)" }
}

/// A 1-based position in a text.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The location of `byteOffset` in `bytes` (columns count Unicode scalars, not bytes).
    public init(byteOffset: Int, in bytes: some Collection<UInt8>) {
        var line = 1
        var column = 1
        var offset = 0
        for byte in bytes {
            if offset >= byteOffset { break }
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0b1100_0000 != 0b1000_0000 {
                column += 1
            }
            offset += 1
        }
        self.init(line: line, column: column)
    }

    public var description: String { "\(line):\(column)" }
}
