import TraitBridgeJSON
import TraitBridgeModel

/// Decodes attribute metadata (format, unit, bounds, valid values…) and checks its consistency.
struct MetadataDecoder {
    let reader: MappingReader

    static let keys: Set<String> = [
        "format", "unit", "min", "max", "step", "validValues", "minLength", "maxLength", "writable", "nullable", "default",
    ]

    func decode(_ object: JSON, at path: JSONPath, allowsWritable: Bool) -> AttributeMetadata? {
        guard let formatText = reader.string(object, "format", at: path, required: true) else { return nil }
        guard let format = AttributeFormat(rawValue: formatText) else {
            let allowed = AttributeFormat.allCases.map(\.rawValue).joined(separator: ", ")
            reader.problem(path.appending("format"), "unknown format '\(formatText)'; allowed: \(allowed)")
            return nil
        }
        var unit: AttributeUnit?
        if let unitText = reader.string(object, "unit", at: path) {
            unit = AttributeUnit(rawValue: unitText)
            if unit == nil {
                let allowed = AttributeUnit.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
                reader.problem(path.appending("unit"), "unknown unit '\(unitText)'; allowed: \(allowed)")
            }
        }
        if !allowsWritable, object["writable"] != nil {
            reader.problem(path.appending("writable"), "'writable' applies to attributes, not to command fields")
        }
        var validValues: [ValidValue]?
        if object["validValues"] != nil {
            validValues = []
            for (index, element) in reader.array(object, "validValues", at: path).enumerated() {
                let valuePath = path.appending("validValues").appending(index)
                if element.kind == .object {
                    reader.checkKeys(element, at: valuePath, allowed: ["value", "label"])
                    guard let value = element["value"] else {
                        reader.problem(valuePath, "missing required key 'value'")
                        continue
                    }
                    validValues?.append(ValidValue(AttributeValue(json: value), label: reader.string(element, "label", at: valuePath)))
                } else {
                    validValues?.append(ValidValue(AttributeValue(json: element)))
                }
            }
        }
        let metadata = AttributeMetadata(
            format: format,
            unit: unit,
            minimum: reader.number(object, "min", at: path),
            maximum: reader.number(object, "max", at: path),
            step: reader.number(object, "step", at: path),
            validValues: validValues,
            minLength: reader.nonNegativeInt(object, "minLength", at: path),
            maxLength: reader.nonNegativeInt(object, "maxLength", at: path),
            isWritable: reader.bool(object, "writable", at: path) ?? false,
            isNullable: reader.bool(object, "nullable", at: path) ?? false,
            defaultValue: object["default"].map(AttributeValue.init(json:))
        )
        for problem in metadata.consistencyProblems {
            reader.problem(path, problem)
        }
        if let validValues {
            for (index, valid) in validValues.enumerated() {
                do {
                    var unrestricted = metadata
                    unrestricted.validValues = nil
                    try unrestricted.validate(valid.value)
                } catch {
                    reader.problem(path.appending("validValues").appending(index), "valid value \(valid.value) is itself invalid: \(error)")
                }
            }
        }
        return metadata
    }
}
