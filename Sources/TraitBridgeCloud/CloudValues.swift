import TraitBridgeModel

/// Small helpers over C2C values held as ``AttributeValue`` structures.
enum CloudValues {
    /// The value at a dotted path (`color.temperatureK`) in a structure; `nil` when absent.
    static func value(at path: [String], in root: AttributeValue) -> AttributeValue? {
        var current = root
        for key in path {
            guard case .structure(let fields) = current, let next = fields[key] else { return nil }
            current = next
        }
        return current
    }

    /// Sets the value at a dotted path, creating structures on the way.
    static func set(_ value: AttributeValue, at path: [String], in root: inout [String: AttributeValue]) {
        guard let first = path.first else { return }
        if path.count == 1 {
            root[first] = value
            return
        }
        var inner: [String: AttributeValue] = [:]
        if case .structure(let fields)? = root[first] { inner = fields }
        set(value, at: Array(path.dropFirst()), in: &inner)
        root[first] = .structure(inner)
    }
}

extension String {
    /// Without leading and trailing spaces (no Foundation on this path).
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
