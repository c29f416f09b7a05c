import TraitBridgeMapping
public import TraitBridgeModel

extension ValuePresenter {
    /// A value as a number in the person's unit, for a line over time (`2150` → 21.5 for °C); nil
    /// when people read it as a word (on/off, heat, locked) or it is no number.
    public func plotted(_ value: AttributeValue, of key: String, metadata: AttributeMetadata?) -> Double? {
        guard let number = value.numericValue, number.isFinite else { return nil }
        if table.attributes[key]?.labels.isEmpty == false { return nil }
        if metadata?.validValues?.isEmpty == false { return nil }
        guard let unit = unit(of: key, metadata: metadata) else { return number }
        return unit.transform.inverse(.double(number), integral: false)?.numericValue
    }
}
