import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// HAP's status codes of a characteristic (HAP §6.7.1.4).
public enum HAPStatus: Int, Error, Sendable {
    case success = 0
    case insufficientPrivileges = -70401
    case communicationFailure = -70402
    case busy = -70403
    case readOnly = -70404
    case writeOnly = -70405
    case notificationsUnsupported = -70406
    case outOfResources = -70407
    case timedOut = -70408
    case notFound = -70409
    case invalidValue = -70410
}

/// Converts between a characteristic's HAP value and the model: reading from a device's trait
/// (its connectivity first: an offline trait is a communication failure, not a stale value), and
/// a written value into the unified command it becomes.
enum HAPValues {
    /// The value of `item` in `graph`, or the status that stands for it.
    static func read(_ item: HAPCharacteristic, in graph: HomeGraph) -> Result<JSONValue, HAPStatus> {
        switch item.source {
        case .constant(let value): return .success(value)
        case .identify: return .failure(.writeOnly)
        case .scene: return .success(.bool(false))
        case .statusFault(let device, let typeKey, let traits):
            guard let instance = graph.devices[device]?.deviceType(key: typeKey) else { return .failure(.notFound) }
            let offline = traits.contains { instance.trait($0)?.connectivity.state == .offline }
            return .success(.int(offline ? 1 : 0))
        case .attribute(let device, let typeKey, let row):
            guard let trait = row.trait, let attribute = row.attribute,
                let instance = graph.devices[device]?.deviceType(key: typeKey)?.trait(trait)
            else { return .failure(.notFound) }
            guard instance.connectivity.state != .offline else { return .failure(.communicationFailure) }
            guard let value = instance.attributes[attribute] else { return .success(.null) }
            guard let converted = row.transform.inverse(value, integral: isInteger(item.format)) else {
                return .success(.null)
            }
            return .success(fit(converted, to: item) ?? .null)
        }
    }

    /// `value` in `item`'s format and bounds (rounded to whole numbers for integer formats).
    static func fit(_ value: AttributeValue, to item: HAPCharacteristic) -> JSONValue? {
        switch item.format {
        case "bool":
            switch value {
            case .bool(let flag): return .bool(flag)
            case .int(let number): return .bool(number != 0)
            case .double(let number): return .bool(number != 0)
            default: return nil
            }
        case "string":
            guard case .string(let text) = value else { return nil }
            return .string(String(text.prefix(64)))
        default:
            let number: Double
            switch value {
            case .bool(let flag): number = flag ? 1 : 0
            default:
                guard let numeric = value.numericValue, numeric.isFinite else { return nil }
                number = numeric
            }
            var fitted = number
            if let minimum = item.minValue { fitted = max(minimum, fitted) }
            if let maximum = item.maxValue { fitted = min(maximum, fitted) }
            if isInteger(item.format) { return FiniteNumber.int64(rounding: fitted).map(JSONValue.int) }
            let step = item.minStep ?? 0.1
            return .double(step > 0 ? (fitted / step).rounded() * step : fitted)
        }
    }

    static func isInteger(_ format: String) -> Bool { format.hasPrefix("uint") || format == "int" }

    /// A written HAP value as the model's value of `row`'s attribute; nil when it is not a value
    /// of the characteristic (wrong kind, outside its bounds).
    static func modelValue(
        _ written: JSON, item: HAPCharacteristic, row: HomeKitTable.Characteristic,
        metadata: AttributeMetadata?
    ) -> AttributeValue? {
        let hapValue: AttributeValue
        if item.format == "bool" {
            if let flag = written.bool {
                hapValue = .bool(flag)
            } else if let number = written.int64, number == 0 || number == 1 {
                hapValue = .bool(number == 1)
            } else {
                return nil
            }
        } else {
            guard let number = written.double, number.isFinite else { return nil }
            if let minimum = item.minValue, number < minimum { return nil }
            if let maximum = item.maxValue, number > maximum { return nil }
            if isInteger(item.format) {
                guard number == number.rounded(), let integer = FiniteNumber.int64(rounding: number) else { return nil }
                hapValue = .int(integer)
            } else {
                hapValue = .double(number)
            }
        }
        if let metadata { return row.transform.forward(hapValue, fittingTo: metadata) }
        var current = hapValue
        for step in row.transform.steps {
            guard let next = step.forward(current) else { return nil }
            current = next
        }
        return current
    }
}
