/// One physical device as TraitBridge presents it: identity, place in the home, device types and
/// their traits. Several sources (zigbee2mqtt and a Cloud-to-cloud SYNC, say) may feed one device;
/// each trait remembers its own source, connectivity and locality.
public struct Device: Sendable, Hashable, Identifiable {
    public let id: DeviceID
    public var name: String
    /// The home the device is in; `nil` until it is placed (the registry places new devices).
    public var homeID: HomeID?
    /// The room within ``homeID``; `nil` means the home's default room.
    public var roomID: RoomID?
    public var identity: DeviceIdentity
    public var info: DeviceInfo
    /// Whether the device is backed by Matter (Home APIs `isMatterDevice`).
    public var isMatterDevice: Bool
    /// Every source that feeds this device (more than one after a merge).
    public var sources: [SourceReference]
    public internal(set) var deviceTypes: [DeviceTypeInstance]

    /// Makes a device; device type keys must be unique and at most one type may be primary.
    public init(
        id: DeviceID,
        name: String,
        identity: DeviceIdentity = DeviceIdentity(),
        info: DeviceInfo = DeviceInfo(),
        isMatterDevice: Bool = false,
        sources: [SourceReference] = [],
        deviceTypes: [DeviceTypeInstance] = []
    ) throws(ModelError) {
        self.id = id
        self.name = name
        self.identity = identity
        self.info = info
        self.isMatterDevice = isMatterDevice
        self.sources = sources
        self.deviceTypes = []
        for deviceType in deviceTypes { try addDeviceType(deviceType) }
    }

    /// Adds a device type; its key must be new, and it may be primary only if no other type is.
    public mutating func addDeviceType(_ deviceType: DeviceTypeInstance) throws(ModelError) {
        guard !deviceTypes.contains(where: { $0.key == deviceType.key }) else {
            throw .duplicateDeviceTypeKey(deviceType.key)
        }
        if deviceType.isPrimaryType, let other = deviceTypes.first(where: \.isPrimaryType) {
            throw .multiplePrimaryTypes([other.key, deviceType.key])
        }
        deviceTypes.append(deviceType)
    }

    /// Adds a trait to a device type (a plug whose energy readings appear later); a trait the type
    /// already has is left as it is.
    public mutating func addTrait(_ trait: TraitInstance, toDeviceType key: String) {
        guard let index = deviceTypes.firstIndex(where: { $0.key == key }), deviceTypes[index].trait(trait.traitID) == nil else { return }
        deviceTypes[index].traits.append(trait)
    }

    /// Takes out the traits `sources` feed, and the device types left with no trait (a joined
    /// source's traits, before they are attached again).
    public mutating func removeTraits(fedBy sources: Set<SourceReference>) {
        for index in deviceTypes.indices {
            deviceTypes[index].traits.removeAll { $0.source.map(sources.contains) ?? false }
        }
        deviceTypes.removeAll { $0.traits.isEmpty }
    }

    /// Makes `key` the primary type and every other type not primary (a source that learns its
    /// device type by type, as Shelly does, settles the primary once it knows more).
    public mutating func setPrimaryType(key: String) {
        guard deviceTypes.contains(where: { $0.key == key }) else { return }
        for index in deviceTypes.indices { deviceTypes[index].isPrimaryType = deviceTypes[index].key == key }
    }

    /// Removes a device type and its traits (for example when a source stops announcing it).
    public mutating func removeDeviceType(key: String) {
        deviceTypes.removeAll { $0.key == key }
    }

    /// The primary type; when none is marked, the first (as Google's sample app falls back).
    public var primaryType: DeviceTypeInstance? {
        deviceTypes.first(where: \.isPrimaryType) ?? deviceTypes.first
    }

    /// Aggregated from the device types (ARCHITECTURE §3); never stored.
    public var sourceConnectivity: SourceConnectivity {
        SourceConnectivity.aggregate(deviceTypes.lazy.map(\.sourceConnectivity))
    }

    public func deviceType(key: String) -> DeviceTypeInstance? {
        deviceTypes.first { $0.key == key }
    }

    public func trait(at address: TraitAddress) -> TraitInstance? {
        deviceType(key: address.deviceTypeKey)?.trait(address.traitID)
    }

    /// Every trait with its address, in device type order.
    public var traitAddresses: [TraitAddress] {
        deviceTypes.flatMap { type in type.traits.map { TraitAddress(deviceTypeKey: type.key, traitID: $0.traitID) } }
    }

    /// Finds a trait by id, with the device type key optional when only one type holds the trait.
    public func resolve(_ traitID: TraitID, deviceTypeKey: String? = nil) throws(ModelError) -> TraitAddress {
        if let deviceTypeKey {
            guard let type = deviceType(key: deviceTypeKey) else {
                throw .unknownDeviceTypeKey(key: deviceTypeKey, known: deviceTypes.map(\.key))
            }
            let address = TraitAddress(deviceTypeKey: deviceTypeKey, traitID: traitID)
            guard type.trait(traitID) != nil else { throw .traitNotInDeviceType(address) }
            return address
        }
        let holders = deviceTypes.filter { $0.trait(traitID) != nil }.map(\.key)
        guard let first = holders.first else {
            throw .traitNotInDeviceType(TraitAddress(deviceTypeKey: "*", traitID: traitID))
        }
        guard holders.count == 1 else { throw .ambiguousTrait(traitID, deviceTypeKeys: holders) }
        return TraitAddress(deviceTypeKey: first, traitID: traitID)
    }

    /// Changes one trait in place; throws when the address does not exist.
    public mutating func modifyTrait(
        at address: TraitAddress,
        _ body: (inout TraitInstance) throws(ModelError) -> Void
    ) throws(ModelError) {
        guard let typeIndex = deviceTypes.firstIndex(where: { $0.key == address.deviceTypeKey }) else {
            throw .unknownDeviceTypeKey(key: address.deviceTypeKey, known: deviceTypes.map(\.key))
        }
        guard let traitIndex = deviceTypes[typeIndex].traits.firstIndex(where: { $0.traitID == address.traitID }) else {
            throw .traitNotInDeviceType(address)
        }
        try body(&deviceTypes[typeIndex].traits[traitIndex])
    }
}
