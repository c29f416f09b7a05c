/// Why a value was refused by ``AttributeMetadata``; the text says what is allowed.
public enum AttributeValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    case notWritable
    case nullNotAllowed
    case wrongKind(expected: AttributeFormat, got: String)
    case notAnInteger(value: Double, format: AttributeFormat)
    case outOfFormatRange(value: Double, format: AttributeFormat)
    case belowMinimum(value: Double, minimum: Double, allowed: String)
    case aboveMaximum(value: Double, maximum: Double, allowed: String)
    case offStep(value: Double, step: Double, base: Double)
    case notAValidValue(value: AttributeValue, allowed: [ValidValue])
    case tooShort(length: Int, minLength: Int)
    case tooLong(length: Int, maxLength: Int)
    case notFinite

    /// The error code used in command results (`valueOutOfRange`, `notSupported`, …).
    public var code: String {
        switch self {
        case .notWritable: "notSupported"
        case .wrongKind, .notAnInteger, .nullNotAllowed, .notFinite: "invalidValue"
        default: "valueOutOfRange"
        }
    }

    public var description: String {
        let f = AttributeMetadata.format
        switch self {
        case .notWritable:
            return "the attribute is read-only; it changes only when the device reports it"
        case .nullNotAllowed:
            return "null is not allowed here; give a value"
        case .wrongKind(let expected, let got):
            return "expected \(Self.article(for: expected)) (format \(expected)), got \(got)"
        case .notAnInteger(let value, let format):
            return "\(f(value)) is not a whole number; format \(format) takes integers"
        case .outOfFormatRange(let value, let format):
            return "\(f(value)) does not fit format \(format) (\(AttributeMetadata.describe(format.integerRange ?? 0...0)))"
        case .belowMinimum(let value, let minimum, let allowed):
            return "\(f(value)) is below the minimum \(f(minimum)); allowed \(allowed)"
        case .aboveMaximum(let value, let maximum, let allowed):
            return "\(f(value)) is above the maximum \(f(maximum)); allowed \(allowed)"
        case .offStep(let value, let step, let base):
            return "\(f(value)) is not a multiple of the step \(f(step)) from \(f(base))"
        case .notAValidValue(let value, let allowed):
            return "\(value) is not one of the valid values: " + allowed.map(\.description).joined(separator: ", ")
        case .tooShort(let length, let minLength):
            return "text is \(length) bytes; at least \(minLength) required"
        case .tooLong(let length, let maxLength):
            return "text is \(length) bytes; at most \(maxLength) allowed"
        case .notFinite:
            return "the number is not finite (NaN or infinity)"
        }
    }

    private static func article(for format: AttributeFormat) -> String {
        switch format {
        case .bool: "a boolean"
        case .string: "a string"
        case .structure: "a structure"
        case .list: "a list"
        case .float: "a number"
        default: "an integer"
        }
    }
}

extension AttributeMetadata {
    /// Checks a reported or written value: kind, format range, bounds, step, valid values, length.
    public func validate(_ value: AttributeValue) throws(AttributeValidationError) {
        if case .null = value {
            if isNullable { return }
            throw .nullNotAllowed
        }
        switch format {
        case .bool:
            guard case .bool = value else { throw .wrongKind(expected: format, got: value.kindName) }
        case .string:
            guard case .string(let text) = value else { throw .wrongKind(expected: format, got: value.kindName) }
            let length = text.utf8.count
            if let minLength, length < minLength { throw .tooShort(length: length, minLength: minLength) }
            if let maxLength, length > maxLength { throw .tooLong(length: length, maxLength: maxLength) }
        case .structure:
            guard case .structure = value else { throw .wrongKind(expected: format, got: value.kindName) }
        case .list:
            guard case .list = value else { throw .wrongKind(expected: format, got: value.kindName) }
        case .float:
            guard let number = value.numericValue else { throw .wrongKind(expected: format, got: value.kindName) }
            guard number.isFinite else { throw .notFinite }
            try checkBounds(number)
        default:
            guard let number = value.numericValue else { throw .wrongKind(expected: format, got: value.kindName) }
            guard number.isFinite else { throw .notFinite }
            guard number == number.rounded() else { throw .notAnInteger(value: number, format: format) }
            if let range = format.integerRange, !range.contains(number) {
                throw .outOfFormatRange(value: number, format: format)
            }
            try checkBounds(number)
        }
        if let validValues, !validValues.contains(where: { Self.matches($0.value, value) }) {
            throw .notAValidValue(value: value, allowed: validValues)
        }
    }

    /// A text value named by its label (`auto` for an enumeration's `Auto`, any case) as the value
    /// it labels; any other value as it is.
    public func resolvingLabel(_ value: AttributeValue) -> AttributeValue {
        guard case .string(let text) = value, format != .string, let validValues else { return value }
        let wanted = text.lowercased()
        return validValues.first { $0.label?.lowercased() == wanted }?.value ?? value
    }

    /// ``validate(_:)`` plus the check that the attribute is writable: use it for commands.
    public func validateWrite(_ value: AttributeValue) throws(AttributeValidationError) {
        guard isWritable else { throw .notWritable }
        try validate(value)
    }

    /// The allowed range as people read it: "1…254 level 1..254", "≥ 0", "any".
    public var allowedRangeDescription: String {
        let unitText = unit.map { " \($0)" } ?? ""
        switch (minimum, maximum) {
        case (let low?, let high?): return "\(Self.format(low))…\(Self.format(high))\(unitText)"
        case (let low?, nil): return "≥ \(Self.format(low))\(unitText)"
        case (nil, let high?): return "≤ \(Self.format(high))\(unitText)"
        case (nil, nil): return "any\(unitText)"
        }
    }

    private func checkBounds(_ number: Double) throws(AttributeValidationError) {
        if let minimum, number < minimum {
            throw .belowMinimum(value: number, minimum: minimum, allowed: allowedRangeDescription)
        }
        if let maximum, number > maximum {
            throw .aboveMaximum(value: number, maximum: maximum, allowed: allowedRangeDescription)
        }
        if let step, step > 0 {
            let base = minimum ?? 0
            let steps = (number - base) / step
            if abs(steps - steps.rounded()) > 1e-9 * max(1, abs(steps)) {
                throw .offStep(value: number, step: step, base: base)
            }
        }
    }

    /// Integers and integral doubles compare by value, so `21` matches a valid value of `21.0`.
    private static func matches(_ allowed: AttributeValue, _ value: AttributeValue) -> Bool {
        if let a = allowed.numericValue, let b = value.numericValue { return a == b }
        return allowed == value
    }
}
