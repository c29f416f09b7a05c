import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// Google Cloud-to-cloud for TraitBridge: SYNC and QUERY import and export, EXECUTE translation.
///
/// A value with the catalog and `mappings/cloud/google-c2c.json`; every method is a pure function
/// of its input (no broker, no clock), so the whole translation is tested from files. The bridge
/// holds one and calls it from its state machine.
public struct GoogleC2C: Sendable {
    /// The source family of every trait a SYNC imported.
    public static let family = "google-c2c"
    static let typePrefix = "action.devices.types."
    static let traitPrefix = "action.devices.traits."
    static let commandPrefix = "action.devices.commands."

    public let catalog: Catalog
    public let table: GoogleC2CTable
    /// The source instance name: `default` for SYNC files, a cloud link's name for its devices.
    public var instance: String
    /// Short C2C type name (`LIGHT`) → the generated `google` device type.
    let googleTypes: [String: DeviceTypeID]
    /// Short C2C trait name (`OpenClose`) → the generated `google` trait.
    let googleTraits: [String: TraitID]
    /// The reverse of ``googleTraits``.
    let c2cTraitNames: [TraitID: String]
    /// Per generated google trait: its SYNC attribute names and its state names (precomputed:
    /// a 10 000-device SYNC asks for them per attribute).
    let syncNames: [TraitID: Set<String>]
    let stateNames: [TraitID: [String]]
    /// A SYNC attribute name → the short C2C trait names it belongs to (one lookup per attribute).
    let syncAttributeOwners: [String: Set<String>]

    public init(catalog: Catalog, table: GoogleC2CTable, instance: String = "default") {
        self.catalog = catalog
        self.table = table
        self.instance = instance
        // The generated definitions name themselves "<C2C name> (Cloud-to-cloud)"
        // (scripts/generate-c2c-catalog.py); that is how a C2C name finds its google id.
        let marker = " (Cloud-to-cloud)"
        var types: [String: DeviceTypeID] = [:]
        for (id, definition) in catalog.deviceTypes
        where id.namespace == .google && definition.displayName.hasSuffix(marker) {
            types[String(definition.displayName.dropLast(marker.count))] = id
        }
        var traits: [String: TraitID] = [:]
        for (id, definition) in catalog.traits where id.namespace == .google && definition.displayName.hasSuffix(marker)
        {
            traits[String(definition.displayName.dropLast(marker.count))] = id
        }
        googleTypes = types
        googleTraits = traits
        c2cTraitNames = Dictionary(traits.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        var sync: [TraitID: Set<String>] = [:]
        var states: [TraitID: [String]] = [:]
        for id in traits.values {
            let attributes = catalog.trait(id)?.attributes ?? []
            sync[id] = Set(attributes.filter { !$0.metadata.isWritable }.map(\.name))
            states[id] = attributes.filter(\.metadata.isWritable).map(\.name)
        }
        syncNames = sync
        stateNames = states
        var owners: [String: Set<String>] = [:]
        for (short, id) in traits {
            for name in sync[id] ?? [] { owners[name, default: []].insert(short) }
        }
        syncAttributeOwners = owners
    }

    /// Parses a payload, or the error that names its line and column.
    static func parse(_ bytes: [UInt8], source: String) throws(CloudError) -> JSON {
        do {
            return try JSONDocument.parse(bytes, maxDepth: 128).root
        } catch {
            throw .notJSON(source: source, line: error.line, column: error.column, reason: error.reason)
        }
    }

    /// The part after the last dot: `action.devices.traits.OnOff` → `OnOff`.
    public static func shortName(_ full: String) -> String {
        full.utf8.lastIndex(of: UInt8(ascii: ".")).map { String(full[full.utf8.index(after: $0)...]) } ?? full
    }

    /// TraitBridge's id for a device the cloud knows as `c2cID`.
    public static func deviceID(c2cID: String) -> DeviceID { DeviceID.derived(source: "c2c", nativeID: c2cID) }

    public func source(c2cID: String) -> SourceReference {
        SourceReference(family: Self.family, instance: instance, nativeID: c2cID)
    }

    /// Whether `short` is a C2C trait this bridge knows (`OnOff`, `OccupancySensing`).
    public func isKnownTrait(_ short: String) -> Bool { googleTraits[short] != nil }

    /// The google trait that keeps a C2C trait's attributes and states under Google's names.
    public func googleTrait(_ short: String) -> TraitID? { googleTraits[short] }

    /// The C2C short name of a google trait id, when it is one of the generated ones.
    func c2cName(ofGoogleTrait id: TraitID) -> String? { c2cTraitNames[id] }

    /// Which names of a google trait are SYNC attributes (the generator marks QUERY states writable).
    func syncAttributeNames(_ trait: TraitID) -> Set<String> { syncNames[trait] ?? [] }

    func stateAttributeNames(_ trait: TraitID) -> [String] { stateNames[trait] ?? [] }

    /// The SensorState sensors a Matter trait of `device` stands for: every sensor row of the trait
    /// when no other C2C trait claims it (AirQuality, CO2…); for a trait another C2C trait also
    /// becomes (BooleanState: OpenClose on a contact sensor), only on a device type the table
    /// chooses by that sensor (a water leak detector).
    func sensorRules(for address: TraitAddress, in device: Device) -> [GoogleC2CTable.SensorRule] {
        let rules = table.sensorRules(forTrait: address.traitID)
        guard !rules.isEmpty else { return [] }
        if table.rule(forTrait: address.traitID) == nil { return rules }
        guard let type = device.deviceType(key: address.deviceTypeKey)?.typeID else { return [] }
        let conditions = Set(rules.map { "SensorState:\($0.name)" })
        let chosenBySensor = table.types.values.joined().contains {
            $0.deviceType == type && $0.when.contains(where: conditions.contains)
        }
        return chosenBySensor ? rules : []
    }
}
