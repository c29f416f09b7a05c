/// All the trait and device type definitions TraitBridge knows: the vocabulary of the model.
///
/// Built by TraitBridgeMapping from `mappings/catalog/`; every device type instance, attribute
/// write and command is checked against it.
public struct Catalog: Sendable {
    public private(set) var traits: [TraitID: TraitDefinition] = [:]
    public private(set) var deviceTypes: [DeviceTypeID: DeviceTypeDefinition] = [:]
    /// How unified commands become attribute writes, for every source.
    public var commandRules: [CommandRule] = [] {
        didSet { commandRulesByTrait = Dictionary(grouping: commandRules, by: \.trait) }
    }
    /// ``commandRules`` by trait, in their order (a description asks for each trait's).
    public private(set) var commandRulesByTrait: [TraitID: [CommandRule]] = [:]

    public init() {}

    /// Adds definitions; a second definition with an id already present is a ``ModelError/duplicateDefinition(_:)``.
    public init(traits: [TraitDefinition], deviceTypes: [DeviceTypeDefinition]) throws(ModelError) {
        for trait in traits {
            guard self.traits[trait.id] == nil else { throw .duplicateDefinition(trait.id.description) }
            self.traits[trait.id] = trait
        }
        for deviceType in deviceTypes {
            guard self.deviceTypes[deviceType.id] == nil else { throw .duplicateDefinition(deviceType.id.description) }
            self.deviceTypes[deviceType.id] = deviceType
        }
    }

    /// Adds what a source found that no mappings file describes (a Matter manufacturer-specific
    /// cluster, a device type the catalog lacks), under a vendor namespace only: the catalog's own
    /// Matter and Google definitions are never replaced, and an id already present keeps its
    /// first definition. Returns whether anything was added.
    @discardableResult
    public mutating func addDiscovered(traits found: [TraitDefinition], deviceTypes foundTypes: [DeviceTypeDefinition])
        -> Bool
    {
        var added = false
        for trait in found where trait.id.namespace.isVendor && traits[trait.id] == nil {
            traits[trait.id] = trait
            added = true
        }
        for type in foundTypes where type.id.namespace.isVendor && deviceTypes[type.id] == nil {
            deviceTypes[type.id] = type
            added = true
        }
        return added
    }

    public func trait(_ id: TraitID) -> TraitDefinition? { traits[id] }
    public func deviceType(_ id: DeviceTypeID) -> DeviceTypeDefinition? { deviceTypes[id] }

    /// The device type with this Matter device type id, if the catalog has one.
    public func deviceType(matterID: UInt32) -> DeviceTypeDefinition? {
        deviceTypes.values.first { $0.matterID == matterID && $0.id.namespace == .matter }
    }

    /// The metadata of one attribute, or the precise reason there is none.
    public func attributeMetadata(_ trait: TraitID, _ attribute: String) throws(ModelError) -> AttributeMetadata {
        // Read in place: a definition taken out of the dictionary is a copy of every field (asked per value).
        guard let index = traits.index(forKey: trait) else { throw .unknownTrait(trait) }
        guard let metadata = traits.values[index].metadata(of: attribute) else {
            throw .unknownAttribute(
                trait: trait, attribute: attribute, known: traits.values[index].attributes.map(\.name))
        }
        return metadata
    }

    /// Makes a device type instance, checking that the type exists, every trait exists, and every
    /// required trait is present. Traits start with no values and ``TraitConnectivity/initial``.
    public func makeDeviceType(
        key: String,
        type typeID: DeviceTypeID,
        isPrimaryType: Bool,
        traits traitIDs: [TraitID],
        requiringAll: Bool = true
    ) throws(ModelError) -> DeviceTypeInstance {
        guard let definition = deviceTypes[typeID] else { throw .unknownDeviceType(typeID) }
        var instances: [TraitInstance] = []
        instances.reserveCapacity(traitIDs.count)
        for traitID in traitIDs {
            guard traits[traitID] != nil else { throw .unknownTrait(traitID) }
            guard !instances.contains(where: { $0.traitID == traitID }) else {
                throw .duplicateTrait(deviceTypeKey: key, trait: traitID)
            }
            instances.append(TraitInstance(traitID: traitID))
        }
        let missing = definition.requiredTraits.filter { !traitIDs.contains($0) }
        guard missing.isEmpty || !requiringAll else { throw .missingRequiredTraits(type: typeID, missing: missing) }
        return DeviceTypeInstance(key: key, typeID: typeID, isPrimaryType: isPrimaryType, traits: instances)
    }
}
