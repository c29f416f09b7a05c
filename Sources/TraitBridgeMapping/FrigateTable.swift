import TraitBridgeJSON
public import TraitBridgeModel

/// `mappings/sources/frigate.json`: how a camera's wake-up sensitivity (the unified contract's
/// `motionSensitivity`: 1 low, 5 medium, 10 high) reads and sets Frigate's motion detection (its
/// `threshold`, 1–255, and `contour_area`, both lower for more sensitive).
public struct FrigateTable: Sendable {
    /// One sensitivity and the Frigate settings it stands for.
    public struct Level: Sendable, Hashable {
        public var sensitivity: Int
        public var threshold: Int
        public var contourArea: Int
    }

    /// Ordered by sensitivity, one per level of the contract.
    public var levels: [Level] = []

    /// The sensitivities the unified contract allows.
    public static let sensitivities = [1, 5, 10]

    public init(levels: [Level]) {
        self.levels = levels.sorted { $0.sensitivity < $1.sensitivity }
    }

    /// The level Frigate's threshold reads as: the one whose threshold is nearest (ties: the more
    /// sensitive).
    public func level(threshold: Int) -> Level? {
        levels.min { a, b in
            let (da, db) = (abs(a.threshold - threshold), abs(b.threshold - threshold))
            return da != db ? da < db : a.sensitivity > b.sensitivity
        }
    }

    public func level(sensitivity: Int) -> Level? { levels.first { $0.sensitivity == sensitivity } }

    /// Loads `<mappings>/sources/frigate.json`.
    public static func load(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> FrigateTable {
        try SourceTableReader.load("sources/frigate.json", mappingsDirectory: mappingsDirectory, catalog: catalog) {
            root, tables in decode(root, tables: tables)
        }
    }

    /// Decodes a table given as bytes (`file` names it in problems).
    public static func decode(file: String, bytes: [UInt8], catalog: Catalog) throws(MappingError) -> FrigateTable {
        try SourceTableReader.decode(file: file, bytes: bytes, catalog: catalog) { root, tables in
            decode(root, tables: tables)
        }
    }

    static func decode(_ root: JSON, tables: SourceTableReader) -> FrigateTable? {
        let reader = tables.reader
        guard let root = reader.object(root, at: .root) else { return nil }
        reader.checkKeys(root, at: .root, allowed: ["sensitivity"])
        var levels: [Level] = []
        for (index, element) in reader.array(root, "sensitivity", at: .root, required: true).enumerated() {
            let path = JSONPath("sensitivity").appending(index)
            guard let object = reader.object(element, at: path) else { continue }
            reader.checkKeys(object, at: path, allowed: ["level", "threshold", "contourArea"])
            guard let level = reader.nonNegativeInt(object, "level", at: path),
                let threshold = reader.nonNegativeInt(object, "threshold", at: path),
                let area = reader.nonNegativeInt(object, "contourArea", at: path)
            else {
                reader.problem(path, "expected \"level\", \"threshold\" and \"contourArea\", each a whole number")
                continue
            }
            guard sensitivities.contains(level), !levels.contains(where: { $0.sensitivity == level }) else {
                reader.problem(path.appending("level"), "expected 1, 5 or 10, each once; found \(level)")
                continue
            }
            guard (1...255).contains(threshold), area >= 1 else {
                reader.problem(path, "threshold must be 1…255 and contourArea at least 1 (Frigate's own bounds)")
                continue
            }
            levels.append(Level(sensitivity: level, threshold: threshold, contourArea: area))
        }
        if levels.count != sensitivities.count {
            reader.problem(JSONPath("sensitivity"), "expected the three levels 1, 5 and 10; found \(levels.count)")
        }
        return FrigateTable(levels: levels)
    }
}
