/// What a device type is: which traits it must and may have.
///
/// Matter device types carry their Matter id; Google types (camera, doorbell) their Home APIs id.
/// A ``DeviceTypeInstance`` can only be made when every required trait is present, as the Home
/// APIs refuse to construct a device type that lacks one.
public struct DeviceTypeDefinition: Sendable, Hashable {
    public var id: DeviceTypeID
    public var displayName: String
    /// The Matter device type id (e.g. 0x0100 for On/Off Light).
    public var matterID: UInt32?
    /// The Google Home APIs id, `home.matter.<vendor hex4>.types.<id hex4>`.
    public var homeAPIsID: String?
    /// A Matter "utility" type (Bridged Node, Power Source…) rather than an application type.
    public var isUtilityType: Bool
    public var requiredTraits: [TraitID]
    public var optionalTraits: [TraitID]
    public var specReference: String?

    public init(
        id: DeviceTypeID,
        displayName: String,
        matterID: UInt32? = nil,
        homeAPIsID: String? = nil,
        isUtilityType: Bool = false,
        requiredTraits: [TraitID],
        optionalTraits: [TraitID] = [],
        specReference: String? = nil
    ) {
        self.id = id
        self.displayName = displayName
        self.matterID = matterID
        self.homeAPIsID = homeAPIsID
        self.isUtilityType = isUtilityType
        self.requiredTraits = requiredTraits
        self.optionalTraits = optionalTraits
        self.specReference = specReference
    }

    /// Whether `trait` is named by this type, required or optional.
    public func allows(_ trait: TraitID) -> Bool {
        requiredTraits.contains(trait) || optionalTraits.contains(trait)
    }
}
