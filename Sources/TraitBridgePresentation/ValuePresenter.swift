public import TraitBridgeMapping
public import TraitBridgeModel

/// Why a person's input cannot be a value (the text says what is allowed, in their unit).
public struct InputRefusal: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A value in a person's words: `22.2 °C` for a Matter temperature of 2220, `on`, `locked`,
/// `40 % open`, from the attribute's catalog metadata and ``PresentationTable``. Every place that
/// shows a value (the CLI, the web UI, the API's `display`) asks this one type, and inputs written
/// the same way (`21.5°C`, `auto`, `on`) are read back by ``read(_:of:metadata:)``.
public struct ValuePresenter: Sendable {
    public let table: PresentationTable

    public init(table: PresentationTable) {
        self.table = table
    }

    /// The key the table uses for an attribute.
    public static func key(trait: String, attribute: String) -> String { trait + "." + attribute }

    /// The value as a person reads it (`nil` metadata: the value as it is).
    public func text(_ value: AttributeValue, of key: String, metadata: AttributeMetadata?) -> String {
        if case .null = value { return "–" }
        let row = table.attributes[key]
        if let word = row?.labels.first(where: { Self.same($0.value, value) })?.word { return word }
        if let label = metadata?.validValues?.first(where: { Self.same($0.value, value) })?.label {
            return Words.fromIdentifier(label)
        }
        switch value {
        case .bool(let flag): return flag ? "yes" : "no"
        case .string(let text): return Words.clipped(text)
        case .list, .structure: return Words.clipped(value.description)
        case .int, .double, .null: break
        }
        guard let number = value.numericValue else { return value.description }
        guard let unit = unit(of: key, metadata: metadata) else {
            // A fraction is kept (to two places) whatever the metadata says the format is.
            let decimals = if case .double = value { 2 } else { 0 }
            return Words.number(number, decimals: decimals) + (metadata?.unit.map { " " + $0.rawValue } ?? "")
        }
        guard let shown = unit.transform.inverse(.double(number), integral: false)?.numericValue else {
            return value.description
        }
        return Words.number(shown, decimals: unit.decimals) + Words.unitSuffix(unit.symbol)
    }

    /// The attribute's name for people: the table's, else its identifier in words
    /// (`occupiedHeatingSetpoint` → "Occupied heating setpoint").
    public func name(of key: String) -> String {
        if let name = table.attributes[key]?.name { return name }
        let attribute = key.split(separator: ".").last.map(String.init) ?? key
        return Words.capitalized(Words.fromIdentifier(attribute))
    }

    /// A trait's name for people: the table's, else its id's last part in words.
    public func traitName(_ trait: String) -> String {
        if let name = table.traits[trait] { return name }
        let last = trait.split(separator: ".").last.map(String.init) ?? trait
        return Words.capitalized(Words.fromIdentifier(last))
    }

    /// The unit a person reads for this attribute, when it has one the table knows.
    public func unit(of key: String, metadata: AttributeMetadata?) -> PresentationTable.Unit? {
        if let own = table.attributes[key]?.unit { return own }
        guard let catalogUnit = metadata?.unit else { return nil }
        return table.units[catalogUnit.rawValue]
    }

    /// The allowed range in the person's unit, once: "7…30 °C", "0…100 %", "≥ 0 s"; the words of an
    /// enumeration ("not fully locked, locked, unlocked"); `nil` when anything goes.
    public func allowed(of key: String, metadata: AttributeMetadata) -> String? {
        if let words = words(of: key, metadata: metadata), !words.isEmpty {
            return words.map(\.word).joined(separator: ", ")
        }
        guard metadata.minimum != nil || metadata.maximum != nil else { return nil }
        let unit = unit(of: key, metadata: metadata)
        func shown(_ bound: Double) -> Double {
            unit?.transform.inverse(.double(bound), integral: false)?.numericValue ?? bound
        }
        let symbol = unit.map { Words.unitSuffix($0.symbol) } ?? (metadata.unit.map { " " + $0.rawValue } ?? "")
        let decimals = unit?.decimals ?? 0
        switch (metadata.minimum.map(shown), metadata.maximum.map(shown)) {
        case (let low?, let high?):
            return Words.number(min(low, high), decimals: decimals) + "…"
                + Words.number(max(low, high), decimals: decimals) + symbol
        case (let low?, nil): return "≥ " + Words.number(low, decimals: decimals) + symbol
        case (nil, let high?): return "≤ " + Words.number(high, decimals: decimals) + symbol
        case (nil, nil): return nil
        }
    }

    /// The words an input may use for this attribute, each with its model value: the table's labels,
    /// then the catalog's valid values in words.
    public func words(of key: String, metadata: AttributeMetadata?) -> [(value: AttributeValue, word: String)]? {
        var words = table.attributes[key]?.labels ?? []
        for valid in metadata?.validValues ?? [] where !words.contains(where: { Self.same($0.value, valid.value) }) {
            if let label = valid.label { words.append((valid.value, Words.fromIdentifier(label))) }
        }
        return words.isEmpty ? nil : words
    }

    /// What a person typed, as the model's value: a word (`on`, `auto`, `not fully locked`, the
    /// catalog's label itself) or a number with the person's unit (`21.5°C`, `40 % open`). `nil`
    /// when the input is neither, so the caller reads it as the model's own form (JSON or text).
    /// A number beyond what the unit's conversion reaches (`120 %` of a level, which would become
    /// the highest level) is refused, never clamped.
    public func read(_ input: String, of key: String, metadata: AttributeMetadata?) throws(InputRefusal)
        -> AttributeValue?
    {
        let typed = Words.folded(input)
        guard !typed.isEmpty else { return nil }
        for valid in metadata?.validValues ?? [] {
            if let label = valid.label, Words.folded(label) == typed { return valid.value }
        }
        if let word = words(of: key, metadata: metadata)?.first(where: { Words.folded($0.word) == typed }) {
            return word.value
        }
        guard let unit = unit(of: key, metadata: metadata) else { return nil }
        let symbol = Words.folded(unit.symbol)
        guard !symbol.isEmpty, typed.hasSuffix(symbol), let number = FiniteNumber.parse(typed.dropLast(symbol.count))
        else { return nil }
        var current = AttributeValue.double(number)
        for step in unit.transform.steps {
            guard let next = step.forward(current) else { return nil }
            current = next
        }
        // A step that clamps (a level's 1…254, a position's 0…100) reads back as another number: beyond
        // what a shown value rounds from, the input was out of range.
        let back = unit.transform.inverse(current, integral: false)?.numericValue ?? .nan
        var tolerance = 0.5
        for _ in 0..<unit.decimals { tolerance /= 10 }
        guard abs(back - number) <= tolerance + 1e-9 * max(1, abs(number)) else {
            let range = metadata.flatMap { allowed(of: key, metadata: $0) }.map { "; allowed: \($0)" } ?? ""
            throw InputRefusal(
                message: "\(Words.number(number, decimals: 6))\(Words.unitSuffix(unit.symbol)) is not allowed "
                    + "for \(name(of: key))\(range)")
        }
        guard let result = current.numericValue, result.isFinite else { return nil }
        if metadata?.format.integerRange != nil {
            return FiniteNumber.int64(rounding: result).map(AttributeValue.int)
        }
        return FiniteNumber.attributeValue(result)
    }

    /// Why the value is refused, in the person's unit ("35 °C is not allowed for Heating to; allowed:
    /// 7…30 °C"); `nil` when the metadata accepts it. `asSent`: the value was typed as the model
    /// has it (`255`), so it is quoted so and the range is given both ways ("allowed: 0…100 % (1…254
    /// as sent)") — a converted out-of-range value could read as in range (255 and 254 are both 100 %).
    public func refusal(_ value: AttributeValue, of key: String, metadata: AttributeMetadata, asSent: Bool = false)
        -> String?
    {
        do throws(AttributeValidationError) {
            try metadata.validate(value)
            return nil
        } catch {
            let shown = asSent ? "\(value) (as sent)" : text(value, of: key, metadata: metadata)
            switch error {
            case .belowMinimum, .aboveMaximum, .notAValidValue:
                var allowed = allowed(of: key, metadata: metadata) ?? "\(error)"
                if asSent, metadata.validValues == nil, unit(of: key, metadata: metadata) != nil,
                    let low = metadata.minimum, let high = metadata.maximum
                {
                    allowed += " (\(Words.number(low, decimals: 6))…\(Words.number(high, decimals: 6)) as sent)"
                }
                return "\(shown) is not allowed for \(name(of: key)); allowed: \(allowed)"
            default:
                return "\(shown): \(error)"
            }
        }
    }

    /// The `trait.attribute` keys a device's card shows first: those of `*`, then of each of its
    /// device types in order, each once.
    public func cardKeys(deviceTypes: [String]) -> [String] {
        var keys: [String] = []
        for type in deviceTypes + ["*"] {
            for key in table.cards[type] ?? [] where !keys.contains(key) { keys.append(key) }
        }
        return keys
    }

    /// An identifier as a label: `moveToLevel` → "Move to level".
    public static func label(_ identifier: String) -> String { Words.capitalized(Words.fromIdentifier(identifier)) }

    /// `number` with at most `decimals` decimals, trailing zeros dropped (22.2, 22, -0.5).
    public static func number(_ number: Double, decimals: Int) -> String { Words.number(number, decimals: decimals) }

    /// Whether two values are the same value (1 and 1.0 are).
    public static func same(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        if let x = a.numericValue, let y = b.numericValue { return x == y }
        return a == b
    }
}
