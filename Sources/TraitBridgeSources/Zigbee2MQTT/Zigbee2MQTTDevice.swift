public import TraitBridgeModel

/// A device zigbee2mqtt announced in `bridge/devices`, mapped to the model, with the bindings
/// its state messages go through.
public struct Zigbee2MQTTDevice: Sendable {
    /// The IEEE address: the stable native id (friendly names change).
    public var ieeeAddress: String
    public var friendlyName: String
    /// The device as the model sees it (no values yet).
    public var device: Device
    /// Payload key → the bindings it feeds.
    public var bindings: [String: [SourceBinding]]
    public var isBatteryPowered: Bool
    /// Payload keys whose values are events too (a button's `action`): empty for most devices.
    public var notifyingKeys: [String] = []

    /// All bindings of one attribute (for commands).
    public func bindings(for address: TraitAddress, attribute: String) -> [SourceBinding] {
        bindings.values.joined().filter { $0.address == address && $0.attribute == attribute }
    }
}
