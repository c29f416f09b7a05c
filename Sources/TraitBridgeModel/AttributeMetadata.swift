/// What values an attribute (or command field) accepts: the HMCharacteristicMetadata of TraitBridge.
///
/// Every write, whether it comes from an MQTT command, an EXECUTE request or the CLI, is checked
/// against this before anything is sent to a device; see ``validate(_:)`` and ``validateWrite(_:)``.
/// Bounds are inclusive and expressed in ``unit``.
public struct AttributeMetadata: Sendable, Hashable, Codable {
    public var format: AttributeFormat
    /// The unit of numeric values, when they have one.
    public var unit: AttributeUnit?
    /// Inclusive lower bound (numbers).
    public var minimum: Double?
    /// Inclusive upper bound (numbers).
    public var maximum: Double?
    /// Values must be `minimum + k × step` (or `k × step` without a minimum).
    public var step: Double?
    /// The only accepted values (enumerations, string modes), with optional labels.
    public var validValues: [ValidValue]?
    /// Shortest accepted text, in UTF-8 bytes (Matter counts bytes).
    public var minLength: Int?
    /// Longest accepted text, in UTF-8 bytes.
    public var maxLength: Int?
    /// Whether the attribute may be written (read-only attributes only change by reports).
    public var isWritable: Bool
    /// Whether `null` is an accepted value.
    public var isNullable: Bool
    /// The value a device starts with, when the specification gives one.
    public var defaultValue: AttributeValue?

    public init(
        format: AttributeFormat,
        unit: AttributeUnit? = nil,
        minimum: Double? = nil,
        maximum: Double? = nil,
        step: Double? = nil,
        validValues: [ValidValue]? = nil,
        minLength: Int? = nil,
        maxLength: Int? = nil,
        isWritable: Bool = false,
        isNullable: Bool = false,
        defaultValue: AttributeValue? = nil
    ) {
        self.format = format
        self.unit = unit
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.validValues = validValues
        self.minLength = minLength
        self.maxLength = maxLength
        self.isWritable = isWritable
        self.isNullable = isNullable
        self.defaultValue = defaultValue
    }

    /// The problems of the metadata itself (min > max, a default outside the bounds, a bound the
    /// format cannot hold…), each as a sentence; empty when the metadata is consistent.
    public var consistencyProblems: [String] {
        var problems: [String] = []
        if let minimum, let maximum, minimum > maximum {
            problems.append("minimum \(Self.format(minimum)) is greater than maximum \(Self.format(maximum))")
        }
        if let range = format.integerRange {
            for (name, bound) in [("minimum", minimum), ("maximum", maximum)] {
                if let bound, !range.contains(bound) {
                    problems.append("\(name) \(Self.format(bound)) does not fit format \(format) (\(Self.describe(range)))")
                }
            }
        }
        if (minimum != nil || maximum != nil || step != nil) && !format.isNumeric {
            problems.append("minimum, maximum and step apply to numbers, not to format \(format)")
        }
        if let step, !(step > 0) {
            problems.append("step \(Self.format(step)) must be greater than 0")
        }
        if let minLength, let maxLength, minLength > maxLength {
            problems.append("minLength \(minLength) is greater than maxLength \(maxLength)")
        }
        if let validValues, validValues.isEmpty {
            problems.append("validValues is empty: no value could ever be accepted")
        }
        if let defaultValue {
            do {
                try validate(defaultValue)
            } catch {
                problems.append("default \(defaultValue) is not accepted: \(error)")
            }
        }
        return problems
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e18 ? String(Int64(number)) : String(number)
    }

    static func describe(_ range: ClosedRange<Double>) -> String {
        "\(format(range.lowerBound))…\(format(range.upperBound))"
    }
}

/// One accepted value of an attribute, with the name people and other systems know it by.
public struct ValidValue: Sendable, Hashable, Codable, CustomStringConvertible {
    public var value: AttributeValue
    public var label: String?

    public init(_ value: AttributeValue, label: String? = nil) {
        self.value = value
        self.label = label
    }

    public var description: String { label.map { "\(value) (\($0))" } ?? value.description }
}
