public import TraitBridgeJSON
public import TraitBridgeModel
import TraitBridgeMapping

/// The value templates TraitBridge reads: none (the payload itself), `{{ value }}`, and
/// `{{ value_json.<key> }}` with dotted keys or `["key"]` / `[0]` steps. Jinja beyond that
/// (filters, `{% if %}`, maps) is refused when the config is read, with the template in the
/// message, so a value is never silently misread.
public enum HAValueTemplate: Sendable, Hashable {
    /// The payload as text.
    case payload
    /// A member of the JSON payload.
    case json([JSONPathStep])

    public enum JSONPathStep: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// Parses a template; the error says what is supported.
    public static func parse(_ text: String?) -> Result<HAValueTemplate, SourceProblem> {
        guard let text else { return .success(.payload) }
        let unsupported = SourceProblem(location: "template", message: "'\(text)' is not supported: TraitBridge reads {{ value }} and {{ value_json.<key> }} (also value_json[\"key\"]), no other Jinja")
        var inner = Substring(text.trimmingWhitespace())
        guard inner.hasPrefix("{{"), inner.hasSuffix("}}"), inner.count >= 4 else { return .failure(unsupported) }
        inner = Substring(String(inner.dropFirst(2).dropLast(2)).trimmingWhitespace())
        if inner == "value" { return .success(.payload) }
        guard inner.hasPrefix("value_json") else { return .failure(unsupported) }
        var rest = inner.dropFirst("value_json".count)
        var steps: [JSONPathStep] = []
        while !rest.isEmpty {
            if rest.first == "." {
                rest = rest.dropFirst()
                let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                guard !name.isEmpty else { return .failure(unsupported) }
                steps.append(.key(String(name)))
                rest = rest.dropFirst(name.count)
            } else if rest.first == "[" {
                guard let close = rest.firstIndex(of: "]") else { return .failure(unsupported) }
                let body = rest[rest.index(after: rest.startIndex)..<close]
                if let index = Int(body) {
                    steps.append(.index(index))
                } else if body.count >= 2, let quote = body.first, quote == "\"" || quote == "'", body.last == quote {
                    steps.append(.key(String(body.dropFirst().dropLast())))
                } else {
                    return .failure(unsupported)
                }
                rest = rest[rest.index(after: close)...]
            } else {
                return .failure(unsupported)
            }
        }
        return steps.isEmpty ? .failure(unsupported) : .success(.json(steps))
    }

    /// Whether the template needs the payload parsed as JSON.
    public var readsJSON: Bool {
        if case .json = self { true } else { false }
    }

    /// The value the template gives for a payload (`document`: the payload parsed, when it is
    /// JSON). `nil` when the payload has no such member (HA renders nothing then).
    public func render(_ payload: [UInt8], document: JSON?) -> AttributeValue? {
        switch self {
        case .payload:
            return .string(String(decoding: payload, as: UTF8.self))
        case .json(let steps):
            guard var current = document else { return nil }
            for step in steps {
                switch step {
                case .key(let key): guard let next = current[key] else { return nil }; current = next
                case .index(let index): guard let next = current[index] else { return nil }; current = next
                }
            }
            return current.kind == .string ? .string(current.string ?? "") : AttributeValue(jsonScalar: current)
        }
    }
}

/// A command template: the payload with `{{ value }}` (or `{{ position }}` for covers) replaced
/// by the value. Anything else inside `{{ }}` or any `{% %}` is refused when the config is read.
public struct HACommandTemplate: Sendable, Hashable {
    /// The text before and after the placeholder; `nil` placeholder means the value alone.
    var prefix: String
    var suffix: String

    public static let value = HACommandTemplate(prefix: "", suffix: "")

    public static func parse(_ text: String?, variable: String = "value") -> Result<HACommandTemplate, SourceProblem> {
        guard let text else { return .success(.value) }
        let unsupported = SourceProblem(location: "template", message: "'\(text)' is not supported: a command template may only contain {{ \(variable) }}")
        let parts = text.split(separator: "{{", omittingEmptySubsequences: false)
        guard !text.contains("{%"), parts.count == 2 else { return .failure(unsupported) }
        let rest = parts[1].split(separator: "}}", maxSplits: 1, omittingEmptySubsequences: false)
        guard rest.count == 2, rest[0].trimmingWhitespace() == variable, !rest[1].contains("}}") else { return .failure(unsupported) }
        return .success(HACommandTemplate(prefix: String(parts[0]), suffix: String(rest[1])))
    }

    public func render(_ value: String) -> String { prefix + value + suffix }
}

extension AttributeValue {
    /// A JSON scalar as a value (objects and arrays too, as structures and lists).
    init(jsonScalar json: JSON) {
        switch json.kind {
        case .null: self = .null
        case .bool: self = .bool(json.bool ?? false)
        case .number: self = json.isInteger ? .int(json.int64 ?? 0) : .double(json.double ?? 0)
        case .string: self = .string(json.string ?? "")
        default: self = .string(json.value.serialized())
        }
    }

    /// How HA prints a rendered value before comparing it with payload words (as a config's words).
    var haWord: String {
        if case .string(let text) = self { return text }  // the common case, without a JSON copy
        return HADiscoveryConfig.word(jsonValue) ?? description
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let text = String(self)
        guard let first = text.firstIndex(where: { !$0.isWhitespace }), let last = text.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(text[first...last])
    }
}
