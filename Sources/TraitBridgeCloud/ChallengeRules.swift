import TraitBridgeModel

/// Google's secondary user verification: which EXECUTE commands need the user to say yes
/// (`ackNeeded`) or give a PIN (`pinNeeded`) before the bridge runs them. Google's secure actions
/// (unlocking, opening a door, garage, gate or window, disarming, turning a camera off, rebooting
/// or reconfiguring a router) need `secureActions`; every command on `pinDevices` or `ackDevices`
/// needs that challenge too. Locking, closing and arming never ask.
public struct ChallengeRules: Sendable {
    /// The two challenges Google's Assistant can put to the user.
    public enum Kind: String, Sendable, Hashable {
        case ack = "ackNeeded"
        case pin = "pinNeeded"
    }

    /// What Google's secure actions need; `nil`: nothing. By default the PIN, and with no PIN
    /// set they are refused (`challengeFailedNotSetup`), as Home Assistant refuses them: a bridge
    /// never unlocks a door for a voice it cannot check unless told to.
    public var secureActions: Kind? = .pin
    /// Devices any command on which needs the PIN.
    public var pinDevices = ExportRules.Match()
    /// Devices any command on which needs a spoken or tapped yes.
    public var ackDevices = ExportRules.Match()
    /// The PIN the user speaks; never printed.
    public var pin: String?
    /// Wrong PINs within `lockoutSeconds` that lock PIN challenges (`tooManyFailedAttempts`) until
    /// the oldest of them is `lockoutSeconds` old.
    public var maxFailedPins = 5
    public var lockoutSeconds: Double = 900

    public init(
        secureActions: Kind? = .pin, pinDevices: ExportRules.Match = .init(), ackDevices: ExportRules.Match = .init(),
        pin: String? = nil
    ) {
        self.secureActions = secureActions
        self.pinDevices = pinDevices
        self.ackDevices = ackDevices
        self.pin = pin
    }

    /// No challenge is ever asked.
    public var isNone: Bool { secureActions == nil && pinDevices.isEmpty && ackDevices.isEmpty }
}

/// What an EXECUTE execution carried in its `challenge` block.
public struct ChallengeAnswer: Sendable, Hashable {
    public var ack: Bool
    public var pin: String?

    public init(ack: Bool = false, pin: String? = nil) {
        self.ack = ack
        self.pin = pin
    }
}

/// The outcome of checking one execution against the rules.
public enum ChallengeVerdict: Sendable, Hashable {
    case pass
    /// Ask the user: `ackNeeded`, `pinNeeded` or `challengeFailedPinNeeded` (a wrong PIN).
    case needed(String)
    /// Refused with this errorCode (`tooManyFailedAttempts`, `challengeFailedNotSetup`).
    case refused(String)
}

extension GoogleC2C {
    /// The Google device types whose opening is a secure action.
    static let openingSecureTypes: Set<String> = ["DOOR", "GARAGE", "GATE", "WINDOW"]
    /// Commands that are secure actions on a router or network device.
    static let networkSecureCommands: Set<String> = [
        "Reboot", "SoftwareUpdate", "EnableDisableGuestNetwork", "EnableDisableNetworkProfile",
        "GetGuestNetworkPassword",
    ]

    /// Whether `input` matches `match` by id, room or type (see ``ExportRules``).
    public func matches(_ input: CloudExportInput, _ match: ExportRules.Match) -> Bool {
        if match.isEmpty { return false }
        if match.ids.contains(input.device.id.rawValue) || match.ids.contains(input.c2cID) { return true }
        if let room = input.roomName, match.rooms.contains(room.lowercased()) { return true }
        if match.types.isEmpty { return false }
        let googleType = googleType(of: input)
        if match.types.contains(googleType) || match.types.contains(Self.shortName(googleType)) { return true }
        return input.device.deviceTypes.contains { match.types.contains($0.typeID.description) }
    }

    /// The full Google type a device is given (`action.devices.types.LIGHT`).
    func googleType(of input: CloudExportInput) -> String {
        input.origin?.type ?? Self.typePrefix + exportType(input.device)
    }

    /// Whether Google counts the execution as a secure action on this device.
    public func isSecureAction(_ execution: ExecuteRequest.Execution, on input: CloudExportInput) -> Bool {
        let type = Self.shortName(googleType(of: input))
        func number(_ key: String) -> Double? { execution.params[key]?.numericValue }
        switch execution.command {
        case "LockUnlock": return execution.params["lock"] == .bool(false)
        case "OpenClose": return Self.openingSecureTypes.contains(type) && (number("openPercent") ?? 0) > 0
        case "OpenCloseRelative":
            return Self.openingSecureTypes.contains(type) && (number("openRelativePercent") ?? 0) > 0
        case "ArmDisarm": return execution.params["arm"] == .bool(false) || execution.params["cancel"] == .bool(true)
        case "OnOff": return type == "CAMERA" && execution.params["on"] == .bool(false)
        default:
            return (type == "ROUTER" || type == "NETWORK") && Self.networkSecureCommands.contains(execution.command)
        }
    }

    /// The challenge an execution needs on this device, the strongest that applies.
    public func requiredChallenge(
        _ execution: ExecuteRequest.Execution, on input: CloudExportInput, rules: ChallengeRules
    ) -> ChallengeRules.Kind? {
        if rules.isNone { return nil }
        if matches(input, rules.pinDevices) { return .pin }
        let secure = isSecureAction(execution, on: input) ? rules.secureActions : nil
        if secure == .pin { return .pin }
        if secure == .ack || matches(input, rules.ackDevices) { return .ack }
        return nil
    }

    /// Checks what the user answered against what is needed. `recentFailures` is how many wrong
    /// PINs the lockout window holds; a wrong PIN here is the caller's to count.
    public static func verify(
        _ kind: ChallengeRules.Kind, answer: ChallengeAnswer?, rules: ChallengeRules, recentFailures: Int
    ) -> ChallengeVerdict {
        switch kind {
        case .ack:
            if answer?.ack == true { return .pass }
            if let given = answer?.pin, let pin = rules.pin, sameSecret(given, pin) { return .pass }
            return .needed(ChallengeRules.Kind.ack.rawValue)
        case .pin:
            guard let pin = rules.pin else { return .refused("challengeFailedNotSetup") }
            if recentFailures >= rules.maxFailedPins { return .refused("tooManyFailedAttempts") }
            guard let given = answer?.pin else { return .needed(ChallengeRules.Kind.pin.rawValue) }
            return sameSecret(given, pin) ? .pass : .needed("challengeFailedPinNeeded")
        }
    }

    /// Equality that takes as long wherever the two differ (and whatever the given length).
    static func sameSecret(_ given: String, _ expected: String) -> Bool {
        let left = Array(given.utf8)
        let right = Array(expected.utf8)
        var difference = UInt(left.count ^ right.count)
        for index in right.indices {
            difference |= UInt((index < left.count ? left[index] : 0) ^ right[index])
        }
        return difference == 0
    }
}
