public import TraitBridgeModel
#if canImport(Glibc)
import Glibc
#endif

/// One step of a value conversion between a source's representation and the model's, with its
/// inverse for commands. Every step is tested in both directions at both ends of its range.
///
/// Written in `mappings/sources/*.json` as `{"scale": 100}`, `{"offset": -10}`, `{"map": [["ON", true],
/// ["OFF", false]]}` or one of the named steps (`"levelFrom254"`, `"invertPercentTo100ths"`,
/// `"kelvinToMireds"`, `"luxToMatter"`, `"fahrenheitToCelsius"`).
public enum ValueTransform: Sendable, Hashable {
    /// model = source × factor.
    case scale(Double)
    /// model = source + offset.
    case offset(Double)
    /// A table of equal pairs (source value, model value), used both ways.
    case map([ValuePair])
    /// zigbee2mqtt brightness 0…254 → Matter level 1…254 (0 becomes the lowest level, 1).
    case levelFrom254
    /// Position 0…100 with 100 = open → Matter percent100ths with 0 = open: (100 − p) × 100.
    case invertPercentTo100ths
    /// Kelvin → mireds (1 000 000 / K); its own inverse.
    case kelvinToMireds
    /// Lux → Matter illuminance 10000 × log10(lux) + 1 (0 lux → 0, "too dark to measure").
    case luxToMatter
    /// °F → °C.
    case fahrenheitToCelsius

    public struct ValuePair: Sendable, Hashable {
        public var source: AttributeValue
        public var model: AttributeValue

        public init(source: AttributeValue, model: AttributeValue) {
            self.source = source
            self.model = model
        }
    }

    /// Source → model; `nil` when the value cannot be converted (wrong kind, not in the map).
    public func forward(_ value: AttributeValue) -> AttributeValue? {
        switch self {
        case .map(let pairs):
            return pairs.first { Self.equal($0.source, value) }?.model
        default:
            guard let number = value.numericValue, number.isFinite else { return nil }
            return .double(forwardNumber(number))
        }
    }

    /// Model → source (for commands); `nil` when the value has no source form.
    public func inverse(_ value: AttributeValue) -> AttributeValue? {
        switch self {
        case .map(let pairs):
            return pairs.first { Self.equal($0.model, value) }?.source
        default:
            guard let number = value.numericValue, number.isFinite else { return nil }
            return .double(inverseNumber(number))
        }
    }

    private func forwardNumber(_ x: Double) -> Double {
        switch self {
        case .scale(let factor): x * factor
        case .offset(let offset): x + offset
        case .levelFrom254: min(254, max(1, x))
        case .invertPercentTo100ths: (100 - min(100, max(0, x))) * 100
        case .kelvinToMireds: x > 0 ? 1_000_000 / x : 0
        case .luxToMatter: x <= 0 ? 0 : min(65534, 10000 * log10(x) + 1)
        case .fahrenheitToCelsius: (x - 32) * 5 / 9
        case .map: x
        }
    }

    private func inverseNumber(_ y: Double) -> Double {
        switch self {
        case .scale(let factor): factor == 0 ? 0 : y / factor
        case .offset(let offset): y - offset
        case .levelFrom254: min(254, max(1, y))
        case .invertPercentTo100ths: 100 - min(10000, max(0, y)) / 100
        case .kelvinToMireds: y > 0 ? 1_000_000 / y : 0
        case .luxToMatter: y <= 0 ? 0 : pow(10, (y - 1) / 10000)
        case .fahrenheitToCelsius: y * 9 / 5 + 32
        case .map: y
        }
    }

    /// Numbers compare by value (1 == 1.0); strings compare exactly.
    static func equal(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        if let x = a.numericValue, let y = b.numericValue { return x == y }
        return a == b
    }
}

/// A chain of transforms, finished by fitting the value to the attribute's metadata: integer
/// formats are rounded, and numbers are clamped to the attribute's bounds (ARCHITECTURE §4).
public struct ValuePipeline: Sendable, Hashable {
    public var steps: [ValueTransform]

    public init(_ steps: [ValueTransform] = []) { self.steps = steps }

    /// Source → model, fitted to `metadata`; `nil` when a step cannot convert the value or the
    /// result is not a finite number (NaN and ±infinity are refused, never clamped).
    public func forward(_ value: AttributeValue, fittingTo metadata: AttributeMetadata) -> AttributeValue? {
        var current = value
        for step in steps {
            guard let next = step.forward(current) else { return nil }
            current = next
        }
        return Self.fit(current, to: metadata)
    }

    /// Model → source. `integral` rounds the result (for sources that expect integers).
    public func inverse(_ value: AttributeValue, integral: Bool) -> AttributeValue? {
        var current = value
        for step in steps.reversed() {
            guard let next = step.inverse(current) else { return nil }
            current = next
        }
        if let number = current.numericValue {
            guard number.isFinite else { return nil }
            if integral || number == number.rounded() && abs(number) < 1e15 {
                return FiniteNumber.int64(rounding: number).map(AttributeValue.int)
            }
            return .double((number * 1000).rounded() / 1000)
        }
        return current
    }

    /// Rounds to integers for integer formats and clamps numbers to the bounds and to the
    /// format's range; other kinds pass. `nil` for NaN and ±infinity: no bound makes them a value.
    public static func fit(_ value: AttributeValue, to metadata: AttributeMetadata) -> AttributeValue? {
        guard let number = value.numericValue, metadata.format.isNumeric else {
            if metadata.format == .bool, case .int(let integer) = value { return .bool(integer != 0) }
            return value
        }
        guard number.isFinite else { return nil }
        var fitted = number
        if let minimum = metadata.minimum { fitted = max(minimum, fitted) }
        if let maximum = metadata.maximum { fitted = min(maximum, fitted) }
        if let range = metadata.format.integerRange {
            fitted = min(range.upperBound, max(range.lowerBound, fitted.rounded()))
            return FiniteNumber.int64(clamping: fitted).map(AttributeValue.int)
        }
        return .double(fitted)
    }
}
