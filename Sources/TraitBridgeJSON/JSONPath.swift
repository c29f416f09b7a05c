/// A location inside a JSON value, such as `devices[3].traits[1]`.
///
/// Used to read nested values and, above all, to say *where* a problem is: every validation error
/// in TraitBridge names the path of the offending value. Keys that are not plain identifiers are
/// written in brackets, `attributes["color.temp"]`, so that the text form parses back to the same path.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    /// The empty path: the root value itself.
    public static let root = JSONPath(components: [])

    public init(components: [Component]) {
        self.components = components
    }

    /// Parses the text form; a malformed path is a programming error in a literal, so the literal
    /// initializer traps, while ``init(parsing:)`` returns `nil` for user input.
    public init(stringLiteral value: String) {
        guard let path = JSONPath(parsing: value) else {
            preconditionFailure("malformed JSON path literal '\(value)'")
        }
        self = path
    }

    /// Parses `a.b[2]["odd key"]`; `nil` when the text is not a path.
    public init?(parsing text: String) {
        var components: [Component] = []
        var scalars = Array(text.unicodeScalars)[...]
        var expectKey = true
        while let first = scalars.first {
            if first == "[" {
                scalars.removeFirst()
                if scalars.first == "\"" {
                    scalars.removeFirst()
                    var key = ""
                    while let c = scalars.first, c != "\"" {
                        scalars.removeFirst()
                        if c == "\\", let escaped = scalars.first {
                            scalars.removeFirst()
                            key.unicodeScalars.append(escaped)
                        } else {
                            key.unicodeScalars.append(c)
                        }
                    }
                    guard scalars.first == "\"" else { return nil }
                    scalars.removeFirst()
                    components.append(.key(key))
                } else {
                    var digits = ""
                    while let c = scalars.first, c.properties.numericType != nil, c.isASCII {
                        digits.unicodeScalars.append(scalars.removeFirst())
                    }
                    guard let index = Int(digits) else { return nil }
                    components.append(.index(index))
                }
                guard scalars.first == "]" else { return nil }
                scalars.removeFirst()
                expectKey = false
            } else if first == "." {
                guard !components.isEmpty, !expectKey else { return nil }
                scalars.removeFirst()
                expectKey = true
            } else {
                guard expectKey else { return nil }
                var key = ""
                while let c = scalars.first, c != ".", c != "[" {
                    key.unicodeScalars.append(scalars.removeFirst())
                }
                components.append(.key(key))
                expectKey = false
            }
        }
        if expectKey && !components.isEmpty { return nil }
        self.components = components
    }

    /// This path extended by a key.
    public func appending(_ key: String) -> JSONPath {
        JSONPath(components: components + [.key(key)])
    }

    /// This path extended by an array index.
    public func appending(_ index: Int) -> JSONPath {
        JSONPath(components: components + [.index(index)])
    }

    /// `$` for the root, else the dotted form.
    public var description: String {
        if components.isEmpty { return "$" }
        var text = ""
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key) where Self.isPlainKey(key):
                if !text.isEmpty { text += "." }
                text += key
            case .key(let key):
                let escaped = key.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"")
                text += "[\"\(escaped)\"]"
            }
        }
        return text
    }

    private static func isPlainKey(_ key: String) -> Bool {
        !key.isEmpty && key.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" || $0 == "@" || $0 == "$") }
    }
}

extension String {
    /// `replacing(_:with:)` without Foundation.
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(count)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
