import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMatterSecureChannel

/// The `matterBridge` section: the bridge as a Matter bridge (every offered unified device a bridged
/// endpoint) that Matter controllers commission. It exists apart from the device server's own
/// settings because it chooses unified devices and the identity the registry keeps.
struct MatterBridgeSettings: Sendable, Hashable {
    /// The address to listen on (UDP).
    var listen = "0.0.0.0"
    /// Matter's port; 0 for any free one (logged).
    var port = 5540
    /// The interfaces whose IPv4 addresses DNS-SD announces (through Avahi); none: not announced.
    var mdnsInterfaces: [String] = []
    /// The setup passcode; when given it replaces the registry's (drawn at the first start otherwise).
    var passcode: UInt32?
    /// The discriminator (0…4095); when given it replaces the registry's.
    var discriminator: UInt16?
    /// Basic Information's NodeLabel: the name a controller may show.
    var name: String?
    /// Which devices the bridge offers (`include`/`exclude` by id, room or type); everything without.
    var exportRules = ExportRules()
    /// Devices per bridge node: more make more bridges (up to 16), each commissioned on its own.
    /// Controllers limit a bridge's devices (Apple Home about 150, Alexa fewer).
    var devicesPerBridge = MatterBridgeSettings.defaultDevicesPerBridge
    /// Basic Information's VendorID and ProductID: the DAC's (the SDK test DAC's 0xFFF1/0x8001 without
    /// `attestation`), required with `attestation`.
    var vendorID: UInt16?
    var productID: UInt16?
    /// The product's own DAC, PAI, CD and DAC key; nil: the SDK's public test credentials.
    var attestation: MatterAttestationFiles?

    static let defaultDevicesPerBridge = 149
    /// The most devices a bridge is given: what the benchmarks measured (a read of every endpoint).
    static let devicesPerBridgeRange = 1...1000
}

extension ServeConfiguration {
    static let matterBridgeKeys = [
        "listen", "port", "mdns", "passcode", "discriminator", "name", "include", "exclude", "devicesPerBridge",
        "vendorId", "productId", "attestation",
    ]

    /// `matterBridge`: `{"listen", "port", "mdns": [interfaces], "passcode", "discriminator", "name",
    /// "include", "exclude", "devicesPerBridge", "vendorId", "productId", "attestation"}`; the bridge is a
    /// Matter bridge only with the section. With more bridges than one, the passcode, discriminator and
    /// port are the first's; the others draw theirs (kept) and listen on the next ports.
    static func parseMatterBridge(_ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError)
        throws(ConfigurationError) -> MatterBridgeSettings
    {
        guard value.kind == .object else {
            throw fail(at, "expected an object with \(matterBridgeKeys.joined(separator: ", "))")
        }
        var settings = MatterBridgeSettings()
        var export: [(String, JSON)] = []
        for (key, member) in value.members where !key.hasPrefix("$") {
            let keyAt = at.appending(key)
            switch key {
            case "listen":
                guard let listen = member.string, !listen.isEmpty else {
                    throw fail(keyAt, "expected an address to listen on, such as \"0.0.0.0\" or \"192.168.1.10\"")
                }
                settings.listen = listen
            case "port":
                guard let port = member.int64.flatMap({ Int(exactly: $0) }), (0...65535).contains(port) else {
                    throw fail(keyAt, "expected a port from 0 to 65535 (Matter's is 5540; 0: any free port)")
                }
                settings.port = port
            case "mdns":
                guard member.kind == .array, member.elements.allSatisfy({ $0.string?.isEmpty == false }) else {
                    throw fail(
                        keyAt, "expected a list of interface names to announce on, such as [\"eth0\"]; [] for none")
                }
                settings.mdnsInterfaces = member.elements.compactMap(\.string)
            case "passcode":
                guard let number = member.int64.flatMap({ UInt32(exactly: $0) }), SetupPasscode.isValid(number) else {
                    throw fail(
                        keyAt,
                        "expected a setup passcode from 1 to 99999998 that is not a trivial one (11111111, 12345678, "
                            + "87654321…); leave it out for a random one")
                }
                settings.passcode = number
            case "discriminator":
                guard let number = member.int64.flatMap({ UInt16(exactly: $0) }),
                    SetupPayload.discriminatorRange.contains(number)
                else {
                    throw fail(keyAt, "expected a discriminator from 0 to 4095; leave it out for a random one")
                }
                settings.discriminator = number
            case "name":
                guard let name = member.string, (1...32).contains(name.utf8.count), !name.contains("\n") else {
                    throw fail(keyAt, "expected a name of 1 to 32 bytes (Matter's NodeLabel, shown by controllers)")
                }
                settings.name = name
            case "include", "exclude": export.append((key, member))
            case "devicesPerBridge":
                let range = MatterBridgeSettings.devicesPerBridgeRange
                guard let count = member.int64.flatMap({ Int(exactly: $0) }), range.contains(count) else {
                    throw fail(
                        keyAt,
                        "expected a number from \(range.lowerBound) to \(range.upperBound) (default "
                            + "\(MatterBridgeSettings.defaultDevicesPerBridge), Apple Home's limit; Alexa: 50); "
                            + "more devices make more bridges")
                }
                settings.devicesPerBridge = count
            case "device":
                throw fail(
                    keyAt,
                    "the bridge now offers every device: leave \"device\" out, or give \"include\": {\"ids\": [...]} "
                        + "to offer only some")
            case "vendorId", "productId":
                guard let id = parseMatterID(member), id != 0 else {
                    throw fail(
                        keyAt,
                        "expected the DAC's \(key == "vendorId" ? "vendor" : "product") id, 1 to 65535 "
                            + "or a hex string such as \"0xFFF1\"")
                }
                if key == "vendorId" { settings.vendorID = id } else { settings.productID = id }
            case "attestation":
                settings.attestation = try parseMatterAttestation(member, at: keyAt, fail: fail)
            default:
                throw fail(keyAt, "unknown key '\(key)'; allowed: \(matterBridgeKeys.joined(separator: ", "))")
            }
        }
        if !export.isEmpty { settings.exportRules = try parseExport(members: export, at: at, fail: fail) }
        try checkMatterIDs(settings, at: at, fail: fail)
        return settings
    }
}
