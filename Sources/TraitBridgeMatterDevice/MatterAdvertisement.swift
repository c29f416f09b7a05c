public import TraitBridgeDNSSD
import TraitBridgeMatterCodec
import TraitBridgeMatterCredentials
public import TraitBridgeMatterTransport

/// The Matter device's DNS-SD records (Core §4.3), computed from what the device is: while its
/// commissioning window is open, the commissionable service `_matterc._udp` that a commissioner
/// (the CHIP SDK's controller, as python-matter-server runs it) browses for by discriminator,
/// vendor or device type; and, for each fabric it was commissioned into, the operational service
/// `_matter._tcp` by which the fabric's controllers find its node. It exists as a pure value so
/// the names, subtypes and TXT keys are tested apart from the responder that announces them
/// (``AvahiAdvertiser``), and so a change (a fabric added, the window closed) is a new value.
public struct MatterAdvertisement: Hashable, Sendable {
    /// A fabric the node belongs to (its compressed fabric id and the node's id there): the two
    /// halves of its operational instance name.
    public typealias Fabric = OperationalIdentity

    /// The 12-bit long discriminator (only its low 12 bits are announced).
    public var discriminator: UInt16
    public var vendorID: UInt16
    public var productID: UInt16
    /// The primary device type (e.g. 0x0100, On/Off Light).
    public var deviceType: UInt32
    /// The device's name (TXT `DN`, cut to 32 bytes).
    public var deviceName: String
    /// The UDP port the node listens on (both services announce it).
    public var port: Int
    /// The commissionable instance: 64 random bits drawn when the window opened and kept while it
    /// stays open; nil while the window is closed (then no commissionable service is announced).
    public var commissioningInstance: UInt64?
    /// The fabrics the node is commissioned into.
    public var fabrics: [Fabric]
    /// The node's MRP intervals, announced as `SII` and `SAI` (nil: not announced, the defaults apply).
    public var mrp: MRPParameters?
    /// How to put the device in commissioning mode (TXT `PH`, a bitmap; nil: not announced).
    public var pairingHint: UInt32?

    /// The commissionable service's type.
    public static let commissionableType = "_matterc._udp"
    /// The operational service's type.
    public static let operationalType = "_matter._tcp"
    /// The most bytes TXT `DN` may hold.
    public static let deviceNameLimit = 32
    /// The largest SII or SAI (one hour, in milliseconds).
    public static let intervalLimit = 3_600_000

    public init(
        discriminator: UInt16, vendorID: UInt16, productID: UInt16, deviceType: UInt32, deviceName: String,
        port: Int, commissioningInstance: UInt64?, fabrics: [Fabric] = [], mrp: MRPParameters? = nil,
        pairingHint: UInt32? = nil
    ) {
        self.discriminator = discriminator
        self.vendorID = vendorID
        self.productID = productID
        self.deviceType = deviceType
        self.deviceName = deviceName
        self.port = port
        self.commissioningInstance = commissioningInstance
        self.fabrics = fabrics
        self.mrp = mrp
        self.pairingHint = pairingHint
    }

    /// Every service to announce now: the commissionable one while the window is open, then one
    /// operational per fabric.
    public var services: [DNSSDService] { (commissionable.map { [$0] } ?? []) + operational }

    /// `_matterc._udp` while the window is open: instance `commissioningInstance` as 16 uppercase
    /// hex digits; subtypes `_L`, `_S`, `_V`, `_T` and `_CM`; TXT D, VP, CM, DT, DN, SII/SAI, PH.
    public var commissionable: DNSSDService? {
        guard let instance = commissioningInstance else { return nil }
        let long = discriminator & 0x0FFF
        var txt = intervals
        txt["D"] = String(long)
        txt["VP"] = "\(vendorID)+\(productID)"
        txt["CM"] = "1"
        txt["DT"] = String(deviceType)
        txt["DN"] = UTF8Text.cut(deviceName, toBytes: Self.deviceNameLimit)
        if let pairingHint { txt["PH"] = String(pairingHint) }
        return DNSSDService(
            name: hex(instance), type: Self.commissionableType, port: port,
            subtypes: ["_L\(long)", "_S\(long >> 8)", "_V\(vendorID)", "_T\(deviceType)", "_CM"], txt: txt)
    }

    /// `_matter._tcp` for each fabric: instance `<compressed fabric id>-<node id>` (each 16 uppercase
    /// hex digits), subtype `_I<compressed fabric id>`, TXT SII/SAI when given.
    public var operational: [DNSSDService] {
        fabrics.map { fabric in
            DNSSDService(
                name: hex(fabric.compressedFabricID) + "-" + hex(fabric.nodeID), type: Self.operationalType,
                port: port, subtypes: ["_I" + hex(fabric.compressedFabricID)], txt: intervals)
        }
    }

    /// SII and SAI in milliseconds (at most an hour), when the MRP intervals are given.
    private var intervals: [String: String] {
        guard let mrp else { return [:] }
        let milliseconds = { (interval: Duration) -> String in
            let (seconds, attoseconds) = interval.components
            let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
            return String(min(max(total, 0), Int64(Self.intervalLimit)))
        }
        return [
            "SII": milliseconds(mrp.idleRetransmissionInterval), "SAI": milliseconds(mrp.activeRetransmissionInterval),
        ]
    }
}
