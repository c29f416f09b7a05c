public import TraitBridgeJSON
public import TraitBridgeModel

extension AttributeMetadata {
    /// The metadata a description payload gives of an attribute (`{"format": "int16", "unit":
    /// "0.01 °C", "min": …, "validValues": [{"value": 1, "label": "Locked"}], "writable": true}`), as
    /// the CLI and the web UI read it; `nil` when it is not of that shape (an unknown format or
    /// unit: a newer bridge's words are shown as they are, not guessed).
    public init?(described json: JSONValue) {
        guard let format = json["format"]?.stringValue.flatMap(AttributeFormat.init(rawValue:)) else { return nil }
        let unitText = json["unit"]?.stringValue
        let unit = unitText.flatMap(AttributeUnit.init(rawValue:))
        guard unitText == nil || unit != nil else { return nil }
        func number(_ key: String) -> Double? {
            switch json[key] {
            case .int(let value)?: Double(value)
            case .double(let value)? where value.isFinite: value
            default: nil
            }
        }
        var validValues: [ValidValue]?
        if let list = json["validValues"]?.arrayElements {
            validValues = list.compactMap { entry in
                entry["value"].map { ValidValue(AttributeValue(jsonValue: $0), label: entry["label"]?.stringValue) }
            }
        }
        var maxLength: Int?
        if case .int(let length)? = json["maxLength"] { maxLength = Int(exactly: length) }
        self.init(
            format: format, unit: unit, minimum: number("min"), maximum: number("max"), step: number("step"),
            validValues: validValues, maxLength: maxLength, isWritable: json["writable"] == .bool(true),
            isNullable: json["nullable"] == .bool(true))
    }
}
