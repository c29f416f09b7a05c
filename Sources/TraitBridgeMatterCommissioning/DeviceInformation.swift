/// What Basic Information, Network Commissioning and Descriptor on the root endpoint say about the
/// device: names, ids, versions, the network interface, the other endpoints. VendorID and ProductID
/// must match the DAC and the Certification Declaration or attestation fails (defaults: the SDK's
/// test 0xFFF1/0x8001). Defaults otherwise name a TraitBridge development build.
public struct DeviceInformation: Sendable, Hashable {
    public var vendorName = "TraitBridge"
    public var vendorID: UInt16 = 0xFFF1
    public var productName = "TraitBridge Bridge"
    public var productID: UInt16 = 0x8001
    public var hardwareVersion: UInt16 = 1
    public var hardwareVersionString = "1"
    public var softwareVersion: UInt32 = 1
    public var softwareVersionString = "0.1"
    /// UniqueID (0x0012): stable across factory resets only if derived so; at most 32 characters.
    public var uniqueID = "TRAITBRIDGE-0001"
    /// SerialNumber (0x000F), optional.
    public var serialNumber: String?
    /// NodeLabel (0x0005), writable; at most 32 characters.
    public var nodeLabel = ""
    /// Location (0x0006), writable; an ISO 3166-1 alpha-2 code, "XX" when unknown.
    public var location = "XX"
    /// The Ethernet network's NetworkID (Network Commissioning `Networks[0]`): the interface name's bytes.
    public var networkID: [UInt8] = Array("en0".utf8)
    /// Descriptor PartsList on endpoint 0: every other endpoint of the node.
    public var partsList: [UInt16] = []
    /// When the device started (General Diagnostics' TimeSnapshot counts from it).
    public var started = ContinuousClock.now

    public init() {}
}
