import FoundationEssentials
import TraitBridgeJSON
public import TraitBridgeModel

/// `mappings/presentation/values.json`: how a value reads to a person — the unit people use for each
/// catalog unit, words for values, names for attributes and traits, and what a device's card shows
/// first. Data, so every place that shows a value (the CLI, the web UI, the API's `display`) says
/// `22.2 °C` the same way and a new unit or label is a row, not code.
public struct PresentationTable: Sendable {
    /// The unit a person reads and how to reach the model's from it.
    public struct Unit: Sendable, Hashable {
        public var symbol: String
        /// Person → model (the model's value is shown through its inverse).
        public var transform: ValuePipeline
        /// At most this many decimals are shown (trailing zeros dropped).
        public var decimals: Int
    }

    /// What the table says of one attribute.
    public struct Attribute: Sendable, Hashable {
        public var name: String?
        /// Model value → the word shown (and accepted as input).
        public var labels: [(value: AttributeValue, word: String)]
        /// A unit of its own, in place of its catalog unit's row.
        public var unit: Unit?

        public static func == (lhs: Attribute, rhs: Attribute) -> Bool {
            lhs.name == rhs.name && lhs.unit == rhs.unit && lhs.labels.elementsEqual(rhs.labels) { $0 == $1 }
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(unit)
            for label in labels {
                hasher.combine(label.value)
                hasher.combine(label.word)
            }
        }
    }

    /// How a card lets a person change an attribute it shows.
    public struct Control: Sendable, Hashable {
        public enum Kind: String, Sendable, CaseIterable {
            /// Two commands: the one that turns it off while it is on, and on while it is off.
            case toggle
            /// A range in the person's unit, written as it is let go.
            case slider
            /// − and + by ``Control/step``.
            case stepper
            /// One of the attribute's words.
            case choice
        }

        public var kind: Kind?
        /// The attribute written, when it is not the one shown (a fan's speed shown, its setting written).
        public var writes: String?
        public var onCommand: String?
        public var offCommand: String?
        /// A stepper's step, in the person's unit.
        public var step: Double?
        /// Buttons beside the value: (label, command of the same trait).
        public var commands: [Button]

        public struct Button: Sendable, Hashable {
            public var label: String
            public var command: String
        }

        public init(
            kind: Kind?, writes: String? = nil, onCommand: String? = nil, offCommand: String? = nil,
            step: Double? = nil, commands: [Button] = []
        ) {
            self.kind = kind
            self.writes = writes
            self.onCommand = onCommand
            self.offCommand = offCommand
            self.step = step
            self.commands = commands
        }
    }

    /// Catalog unit (`AttributeUnit`'s raw value) → the unit people read.
    public var units: [String: Unit] = [:]
    /// `trait.attribute` → what the table says of it.
    public var attributes: [String: Attribute] = [:]
    /// Trait id → its name for people.
    public var traits: [String: String] = [:]
    /// Device type id (or `*`, every device) → `trait.attribute` keys shown first, in order.
    public var cards: [String: [String]] = [:]
    /// `trait.attribute` → how a card changes it.
    public var controls: [String: Control] = [:]

    public init() {}

    /// Where the table is, under a mappings folder.
    public static let relativePath = "presentation/values.json"

    /// Loads `<mappings>/presentation/values.json`; `catalog` checks its traits, attributes, units
    /// and device types (`nil`: decoded without those checks, as the CLI's read commands do).
    public static func load(mappingsDirectory: String, catalog: Catalog?) throws(MappingError) -> PresentationTable {
        let path = mappingsDirectory + "/" + relativePath
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MappingError(problems: [
                MappingProblem(
                    file: path, location: .init(line: 1, column: 1), path: .root, message: "cannot read the file")
            ])
        }
        return try decode(file: path, bytes: [UInt8](data), catalog: catalog)
    }

    /// Decodes a table given as bytes (`file` names it in problems).
    public static func decode(file: String, bytes: [UInt8], catalog: Catalog?) throws(MappingError)
        -> PresentationTable
    {
        try SourceTableReader.decode(file: file, bytes: bytes, catalog: catalog ?? Catalog()) { root, tables in
            PresentationTableDecoder(tables: tables, checksCatalog: catalog != nil).decode(root)
        }
    }
}

/// Reads `presentation/values.json` into a ``PresentationTable``, every problem with its place.
struct PresentationTableDecoder {
    let tables: SourceTableReader
    let checksCatalog: Bool
    var reader: MappingReader { tables.reader }
    static let maximumDecimals = 6

    func decode(_ root: JSON) -> PresentationTable? {
        guard let root = reader.object(root, at: .root) else { return nil }
        reader.checkKeys(root, at: .root, allowed: ["units", "attributes", "traits", "cards", "controls"])
        var table = PresentationTable()
        for (key, value) in members(root, "units") {
            let path = JSONPath("units").appending(key)
            if checksCatalog, AttributeUnit(rawValue: key) == nil {
                reader.problem(path, "unknown unit '\(key)'; use a unit of the catalog (AttributeUnit)")
            }
            guard let object = reader.object(value, at: path) else { continue }
            reader.checkKeys(object, at: path, allowed: ["unit", "transform", "decimals"])
            if let unit = unit(object, at: path, required: true) { table.units[key] = unit }
        }
        for (key, value) in members(root, "attributes") {
            let path = JSONPath("attributes").appending(key)
            guard let object = reader.object(value, at: path) else { continue }
            reader.checkKeys(object, at: path, allowed: ["name", "labels", "unit", "transform", "decimals"])
            checkAttribute(key, at: path)
            table.attributes[key] = PresentationTable.Attribute(
                name: reader.string(object, "name", at: path), labels: labels(object, at: path),
                unit: unit(object, at: path, required: false))
        }
        for (key, value) in members(root, "traits") {
            let path = JSONPath("traits").appending(key)
            if checksCatalog, TraitID(parsing: key).flatMap({ tables.catalog.trait($0) }) == nil {
                reader.problem(path, "unknown trait '\(key)'; use a trait of mappings/catalog")
            }
            guard let name = value.string, !name.isEmpty else {
                reader.problem(path, "expected the trait's name, a non-empty string")
                continue
            }
            table.traits[key] = name
        }
        for (key, value) in members(root, "cards") {
            let path = JSONPath("cards").appending(key)
            if checksCatalog, key != "*", DeviceTypeID(parsing: key).flatMap({ tables.catalog.deviceType($0) }) == nil {
                reader.problem(path, "unknown device type '\(key)'; use a device type of mappings/catalog or *")
            }
            guard value.kind == .array else {
                reader.problem(path, "expected a list of trait.attribute")
                continue
            }
            var shown: [String] = []
            for (index, element) in value.elements.enumerated() {
                guard let text = element.string else {
                    reader.problem(path.appending(index), "expected trait.attribute, a string")
                    continue
                }
                checkAttribute(text, at: path.appending(index))
                shown.append(text)
            }
            table.cards[key] = shown
        }
        for (key, value) in members(root, "controls") {
            let path = JSONPath("controls").appending(key)
            checkAttribute(key, at: path)
            if let control = control(value, of: key, at: path) { table.controls[key] = control }
        }
        return table
    }

    private func members(_ root: JSON, _ key: String) -> [(String, JSON)] {
        guard let object = root[key] else { return [] }
        guard object.kind == .object else {
            reader.problem(JSONPath.root.appending(key), "expected an object, found \(object.kind)")
            return []
        }
        return object.members.filter { !$0.key.hasPrefix("$") }
    }

    /// `unit`, `transform`, `decimals` of a row; nil (and no problem) when `unit` is absent and not required.
    private func unit(_ object: JSON, at path: JSONPath, required: Bool) -> PresentationTable.Unit? {
        guard let symbol = reader.string(object, "unit", at: path, required: required) else {
            for key in ["transform", "decimals"] where object[key] != nil {
                reader.problem(path.appending(key), "'\(key)' needs 'unit' beside it")
            }
            return nil
        }
        let decimals = reader.nonNegativeInt(object, "decimals", at: path) ?? 0
        if decimals > Self.maximumDecimals {
            reader.problem(path.appending("decimals"), "at most \(Self.maximumDecimals) decimals")
        }
        let pipeline = tables.pipeline(object, at: path)
        if pipeline.steps.contains(where: { if case .map = $0 { true } else { false } }) {
            reader.problem(path.appending("transform"), "a unit converts numbers; give words under 'labels'")
        }
        return PresentationTable.Unit(
            symbol: symbol, transform: pipeline, decimals: min(decimals, Self.maximumDecimals))
    }

    private func labels(_ object: JSON, at path: JSONPath) -> [(value: AttributeValue, word: String)] {
        var labels: [(value: AttributeValue, word: String)] = []
        for (index, pair) in reader.array(object, "labels", at: path).enumerated() {
            guard pair.kind == .array, pair.count == 2, let value = pair[0], let word = pair[1]?.string, !word.isEmpty
            else {
                reader.problem(path.appending("labels").appending(index), "expected a pair [model value, word]")
                continue
            }
            if labels.contains(where: { $0.word == word }) {
                reader.problem(path.appending("labels").appending(index), "the word '\(word)' is given twice")
            }
            labels.append((AttributeValue(json: value), word))
        }
        return labels
    }

    /// `trait.attribute`, checked against the catalog when it is given.
    private func checkAttribute(_ key: String, at path: JSONPath) {
        guard let dot = key.lastIndex(of: "."), let trait = TraitID(parsing: String(key[..<dot])) else {
            reader.problem(path, "expected trait.attribute, e.g. matter.OnOff.onOff; found '\(key)'")
            return
        }
        guard checksCatalog else { return }
        let name = String(key[key.index(after: dot)...])
        guard let definition = tables.catalog.trait(trait) else {
            reader.problem(path, "unknown trait '\(trait)'; use a trait of mappings/catalog")
            return
        }
        if definition.attribute(named: name) == nil {
            reader.problem(path, "trait \(trait) has no attribute '\(name)'")
        }
    }
}

extension PresentationTableDecoder {
    /// A `controls` row: `{"control": "slider", "writes": …, "on"/"off": …, "step": …,
    /// "commands": [[label, command]]}`.
    func control(_ value: JSON, of key: String, at path: JSONPath) -> PresentationTable.Control? {
        guard let object = reader.object(value, at: path) else { return nil }
        reader.checkKeys(object, at: path, allowed: ["control", "writes", "on", "off", "step", "commands"])
        var control = PresentationTable.Control(kind: nil)
        if let kind = reader.string(object, "control", at: path) {
            control.kind = PresentationTable.Control.Kind(rawValue: kind)
            if control.kind == nil {
                let kinds = PresentationTable.Control.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                reader.problem(path.appending("control"), "unknown control '\(kind)'; use one of \(kinds)")
            }
        }
        let trait = key.lastIndex(of: ".").map { String(key[..<$0]) } ?? key
        control.writes = reader.string(object, "writes", at: path)
        if let writes = control.writes { checkAttribute(trait + "." + writes, at: path.appending("writes")) }
        control.onCommand = reader.string(object, "on", at: path)
        control.offCommand = reader.string(object, "off", at: path)
        if control.kind == .toggle, control.onCommand == nil || control.offCommand == nil {
            reader.problem(path, "a toggle names the commands that turn it on and off: \"on\" and \"off\"")
        }
        control.step = reader.number(object, "step", at: path)
        if control.kind == .stepper, !((control.step ?? 0) > 0) {
            reader.problem(path, "a stepper needs \"step\", a number greater than 0 in the person's unit")
        }
        var commands = [control.onCommand, control.offCommand].compactMap { $0 }
        for (index, pair) in reader.array(object, "commands", at: path).enumerated() {
            guard pair.kind == .array, pair.count == 2, let label = pair[0]?.string, let command = pair[1]?.string,
                !label.isEmpty
            else {
                reader.problem(path.appending("commands").appending(index), "expected a pair [label, command]")
                continue
            }
            control.commands.append(.init(label: label, command: command))
            commands.append(command)
        }
        if checksCatalog, let id = TraitID(parsing: trait), let definition = tables.catalog.trait(id) {
            for command in commands where definition.command(named: command) == nil {
                reader.problem(path, "trait \(trait) has no command '\(command)'")
            }
        }
        return control
    }
}
