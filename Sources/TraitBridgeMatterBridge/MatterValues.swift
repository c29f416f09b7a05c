public import TraitBridgeMatterCodec
public import TraitBridgeModel

/// The unified model's values as Matter TLV and back, by the catalog's attribute formats. Values are
/// already in Matter units (the sources scale them), so the conversion is of kind and range only; it
/// is total: a value that does not fit its format gives nil (the attribute is left out or null),
/// never a trap.
public enum MatterValues {
    /// `value` as TLV of `metadata`'s format; nil when it does not fit (a fraction for an integer, a
    /// number out of the format's range, a list or structure, null where not nullable).
    public static func tlv(_ value: AttributeValue, as metadata: AttributeMetadata) -> TLVValue? {
        switch (value, metadata.format) {
        case (.null, _): return metadata.isNullable ? .null : nil
        case (.bool(let flag), .bool): return .bool(flag)
        case (.string(let text), .string): return .string(text)
        case (_, .float):
            guard let number = value.numericValue, Float(number).isFinite else { return nil }
            return .float(Float(number))
        case (.int, _), (.double, _):
            guard let number = value.numericValue, let range = metadata.format.integerRange, range.contains(number),
                number.rounded(.towardZero) == number
            else { return nil }
            if metadata.format.isSigned {
                return Int64(exactly: number).map { .signed($0) }
            }
            return UInt64(exactly: number).map { .unsigned($0) }
        default: return nil
        }
    }

    /// A command field or written value as the model's value; nil for what the model has no kind for
    /// (structures, lists, octets) or an integer past Int64.
    public static func attributeValue(_ value: TLVValue) -> AttributeValue? {
        switch value {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .signed(let number): .int(number)
        case .unsigned(let number): Int64(exactly: number).map { .int($0) }
        case .float(let number): number.isFinite ? .double(Double(number)) : nil
        case .double(let number): number.isFinite ? .double(number) : nil
        case .string(let text): .string(text)
        default: nil
        }
    }

    /// `text` cut to at most `limit` UTF-8 bytes on a character boundary (Matter counts bytes).
    public static func truncated(_ text: String, toBytes limit: Int) -> String { UTF8Text.cut(text, toBytes: limit) }
}

extension AttributeFormat {
    var isSigned: Bool {
        switch self {
        case .int8, .int16, .int32, .int64: true
        default: false
        }
    }
}

/// Whether an element is served under a set of features, from the specification's conformance
/// expression (`M`, `O`, a feature code, `!X`, `[X]`, `X | Y`, `X & Y`, `X, O`). Expressions it does not
/// read (comparisons with attribute values) count as optional: served only when the model or the table
/// gives a value.
enum Conformance: Equatable {
    case mandatory, optional, disallowed

    init(_ expression: String?, features: Set<String>) {
        guard let expression = expression?.filter({ !$0.isWhitespace }), !expression.isEmpty else {
            self = .optional
            return
        }
        // "A, B": the first that is not disallowed (otherwise-conformance).
        let choices = expression.split(separator: ",").map(String.init)
        if choices.count > 1 {
            self = choices.lazy.map { Conformance($0, features: features) }.first { $0 != .disallowed } ?? .disallowed
            return
        }
        if expression.hasPrefix("["), expression.hasSuffix("]") {
            let inner = Conformance(String(expression.dropFirst().dropLast()), features: features)
            self = inner == .disallowed ? .disallowed : .optional
            return
        }
        switch expression {
        case "M": self = .mandatory
        case "O": self = .optional
        case "P", "D", "X", "desc": self = expression == "desc" ? .optional : .disallowed
        default:
            guard let holds = Self.holds(expression, features: features) else {
                self = .optional
                return
            }
            self = holds ? .mandatory : .disallowed
        }
    }

    /// A boolean expression of feature codes (`!`, `&`, `|`, parentheses left out); nil for anything else.
    private static func holds(_ expression: String, features: Set<String>) -> Bool? {
        let stripped = expression.filter { $0 != "(" && $0 != ")" }
        let alternatives = stripped.split(separator: "|")
        var any = false
        for alternative in alternatives {
            var all = true
            for term in alternative.split(separator: "&") {
                let negated = term.hasPrefix("!")
                let code = String(negated ? term.dropFirst() : term[...])
                guard !code.isEmpty, code.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
                    code.first?.isUppercase == true
                else { return nil }
                if features.contains(code) == negated { all = false }
            }
            if all { any = true }
        }
        return any
    }
}
