extension JSONProjection {
    /// What a projected parse keeps of a value parsed whole (for tests and the fuzzer: the
    /// projected parse of a text, and the whole parse of it, agree once both are passed through this).
    public func applied(to value: JSONValue) -> JSONValue {
        switch (self, value) {
        case (.all, _): return value
        // The text as written; equal to this when it was written compactly, as the bridge writes.
        case (.text(let inner), _):
            return .string(String(decoding: inner.applied(to: value).serializedBytes(), as: UTF8.self))
        case (_, .array(let elements)): return .array(elements.map { applied(to: $0) })
        case (.allExcept(let dropped), .object(let object)):
            var kept = JSONObject()
            for (key, member) in object.members where !dropped.contains(key) { kept[key] = applied(to: member) }
            return .object(kept)
        case (.eachMember(let inner), .object(let object)):
            var kept = JSONObject()
            for (key, member) in object.members { kept[key] = inner.applied(to: member) }
            return .object(kept)
        case (.members(let rules), .object(let object)):
            var kept = JSONObject()
            for (key, member) in object.members {
                if let rule = rules[key] { kept[key] = rule.applied(to: member) }
            }
            return .object(kept)
        default: return value
        }
    }
}
