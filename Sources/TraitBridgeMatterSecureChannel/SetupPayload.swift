/// A device's onboarding payload (Matter Core §5.1, "Onboarding Payload"): what a commissioner needs
/// to find the device (discriminator, discovery capabilities, vendor and product) and to open PASE with
/// it (the passcode). It exists so the QR code (`MT:…`, ``qrCode``) and the manual pairing code
/// (``manualPairingCode``) are produced from, and parsed back into, one validated value.
///
/// Its description and dump leave out the passcode; the codes themselves carry it, so treat them as
/// secrets (print them on the label, not in logs).
public struct SetupPayload: Sendable, Hashable {
    /// Commissioning Flow (§5.1.1): how the device gets into commissioning mode.
    public enum CommissioningFlow: UInt8, Sendable, Hashable, CaseIterable {
        /// Commissionable as soon as it is powered.
        case standard = 0
        /// The user must act on the device (press a button) first.
        case userActionRequired = 1
        /// The vendor's instructions say how; the manual code then carries vendor and product.
        case custom = 2
    }

    /// Discovery Capabilities Bitmask (§5.1.1): how a commissioner can reach the device. Bits as
    /// connectedhomeip `RendezvousInformationFlag` numbers them; bits not named here are kept as read.
    public struct DiscoveryCapabilities: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Bit 0: a Wi-Fi soft access point.
        public static let softAP = DiscoveryCapabilities(rawValue: 1 << 0)
        /// Bit 1: Bluetooth LE.
        public static let ble = DiscoveryCapabilities(rawValue: 1 << 1)
        /// Bit 2: already on the IP network (DNS-SD `_matterc._udp`): this bridge's case.
        public static let onNetwork = DiscoveryCapabilities(rawValue: 1 << 2)
        /// Bit 3: Wi-Fi Public Action Frames (a later addition to the spec).
        public static let wiFiPAF = DiscoveryCapabilities(rawValue: 1 << 3)
        /// Bit 4: NFC (later addition).
        public static let nfc = DiscoveryCapabilities(rawValue: 1 << 4)
        /// Bit 5: Thread (later addition).
        public static let thread = DiscoveryCapabilities(rawValue: 1 << 5)
    }

    /// The payload format version; 0 is the only one defined (§5.1.1).
    public static let version: UInt8 = 0
    /// Discriminators are 12 bits (§5.1.1).
    public static let discriminatorRange: ClosedRange<UInt16> = 0...4095

    public let vendorID: UInt16
    public let productID: UInt16
    public let commissioningFlow: CommissioningFlow
    public let discoveryCapabilities: DiscoveryCapabilities
    /// The 12-bit discriminator the device advertises (`D=` in DNS-SD, `_L<discriminator>` subtype).
    public let discriminator: UInt16
    public let passcode: SetupPasscode

    /// - Throws: ``SetupPayloadError/discriminatorOutOfRange(_:)`` above 4095.
    public init(
        vendorID: UInt16, productID: UInt16, commissioningFlow: CommissioningFlow = .standard,
        discoveryCapabilities: DiscoveryCapabilities = .onNetwork, discriminator: UInt16, passcode: SetupPasscode
    ) throws(SetupPayloadError) {
        guard Self.discriminatorRange.contains(discriminator) else { throw .discriminatorOutOfRange(discriminator) }
        self.vendorID = vendorID
        self.productID = productID
        self.commissioningFlow = commissioningFlow
        self.discoveryCapabilities = discoveryCapabilities
        self.discriminator = discriminator
        self.passcode = passcode
    }

    /// This payload naming `vendorID` and `productID`, everything else kept: the vendor and product a
    /// commissioner reads in the QR code must be the attested product's (the DAC's, Basic Information's).
    public func naming(vendorID: UInt16, productID: UInt16) -> SetupPayload {
        SetupPayload(
            checked: (vendorID, productID), commissioningFlow: commissioningFlow,
            discoveryCapabilities: discoveryCapabilities, discriminator: discriminator, passcode: passcode)
    }

    /// A payload of fields already checked (the discriminator in range).
    private init(
        checked ids: (vendorID: UInt16, productID: UInt16), commissioningFlow: CommissioningFlow,
        discoveryCapabilities: DiscoveryCapabilities, discriminator: UInt16, passcode: SetupPasscode
    ) {
        vendorID = ids.vendorID
        productID = ids.productID
        self.commissioningFlow = commissioningFlow
        self.discoveryCapabilities = discoveryCapabilities
        self.discriminator = discriminator
        self.passcode = passcode
    }

    /// A uniformly drawn discriminator, for a device that picks its own at manufacture or reset.
    public static func randomDiscriminator(using generator: inout some RandomNumberGenerator) -> UInt16 {
        UInt16.random(in: discriminatorRange, using: &generator)
    }

    /// The 4 high bits of the discriminator: all the manual pairing code carries of it (§5.1.4.1), and
    /// what a commissioner given only that code filters DNS-SD on (`_S<short>` subtype).
    public var shortDiscriminator: UInt8 { UInt8(discriminator >> 8) }
}

extension SetupPayload: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Everything but the passcode.
    public var description: String {
        "SetupPayload(vendorID: 0x\(String(vendorID, radix: 16, uppercase: true)), "
            + "productID: 0x\(String(productID, radix: 16, uppercase: true)), flow: \(commissioningFlow), "
            + "capabilities: 0x\(String(discoveryCapabilities.rawValue, radix: 16)), "
            + "discriminator: \(discriminator), passcode redacted)"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "vendorID": vendorID, "productID": productID, "commissioningFlow": commissioningFlow,
                "discoveryCapabilities": discoveryCapabilities.rawValue, "discriminator": discriminator,
            ],
            displayStyle: .struct)
    }
}
