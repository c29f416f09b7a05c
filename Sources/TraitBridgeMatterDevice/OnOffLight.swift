public import TraitBridgeMatterCodec
public import TraitBridgeMatterCommissioning
public import TraitBridgeMatterInteraction

/// An On/Off Light endpoint (device type 0x0100): Identify and On/Off (without the Lighting
/// feature). It exists as the first application endpoint a controller commissions and commands;
/// the bridge's own devices take its place later. Its state changes only through its commands or
/// ``set(isOn:)`` (the device side), so every change is seen by the data model that owns it.
public struct OnOffLight: ApplicationEndpoint {
    public static let deviceType = DeviceTypeRevision(0x0100, revision: 3)
    static let identify: UInt32 = 0x0003
    static let onOff: UInt32 = 0x0006

    public let id: UInt16
    public private(set) var isOn: Bool
    /// Identify's IdentifyTime: seconds left; counted down by whoever runs the endpoint's clock.
    public private(set) var identifyTime: UInt16 = 0

    public init(id: UInt16, isOn: Bool = false) {
        precondition(id != 0 && id != 0xFFFF, "endpoint 0 is the root's; 0xFFFF is no endpoint")
        self.id = id
        self.isOn = isOn
    }

    public var deviceTypes: [DeviceTypeRevision] { [Self.deviceType] }

    /// Identify revision 5 (Identify 0x00, TriggerEffect 0x40); On/Off revision 6 (Off, On, Toggle).
    public var clusters: [ClusterDescription] {
        [
            ClusterDescription(id: Self.identify, revision: 5, accepted: [0x00, 0x40]),
            ClusterDescription(id: Self.onOff, revision: 6, accepted: [0x00, 0x01, 0x02]),
        ]
    }

    public func attributes(of cluster: UInt32) -> [UInt32: TLVValue] {
        switch cluster {
        // IdentifyType 0: none (no visible effect: the bridge has no light of its own).
        case Self.identify: [0x0000: .unsigned(UInt64(identifyTime)), 0x0001: .unsigned(0)]
        case Self.onOff: [0x0000: .bool(isOn)]
        default: [:]
        }
    }

    public mutating func write(cluster: UInt32, attribute: UInt32, value: TLVValue) -> StatusCode {
        guard cluster == Self.identify, attribute == 0x0000 else {
            return attributes(of: cluster)[attribute] == nil ? .unsupportedAttribute : .unsupportedWrite
        }
        guard case .unsigned(let seconds) = value, let time = UInt16(exactly: seconds) else { return .constraintError }
        identifyTime = time
        return .success
    }

    public mutating func invoke(cluster: UInt32, command: UInt32, fields: TLVValue) -> RootEndpoint.InvokeResult {
        switch (cluster, command) {
        case (Self.onOff, 0x00): isOn = false
        case (Self.onOff, 0x01): isOn = true
        case (Self.onOff, 0x02): isOn.toggle()
        case (Self.identify, 0x00):
            guard let time = try? fields.uint(0, as: UInt16.self) else { return .status(.invalidCommand) }
            identifyTime = time
        case (Self.identify, 0x40):
            // TriggerEffect(EffectIdentifier, EffectVariant): accepted, nothing to show.
            guard (try? fields.uint(0, as: UInt8.self)) != nil, (try? fields.uint(1, as: UInt8.self)) != nil else {
                return .status(.invalidCommand)
            }
        default: return .status(.unsupportedCommand)
        }
        return .status(.success)
    }

    /// The light switched at the device (or by the bridge's source).
    public mutating func set(isOn: Bool) { self.isOn = isOn }
}
