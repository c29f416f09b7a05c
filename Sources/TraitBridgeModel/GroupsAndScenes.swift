/// Identifies a group; unique across homes.
public struct GroupID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: GroupID, rhs: GroupID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Identifies a scene; unique across homes.
public struct SceneID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: SceneID, rhs: SceneID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// HomeKit's service group: devices (or one device type of a device, a plug's second outlet)
/// that people act on together — "Living room lamps". Its state and connectivity are computed
/// from its members, never stored.
public struct DeviceGroup: Sendable, Hashable, Identifiable, Codable {
    public let id: GroupID
    public internal(set) var name: String
    public internal(set) var members: [GroupMember]

    public init(id: GroupID, name: String, members: [GroupMember]) {
        self.id = id
        self.name = name
        self.members = members
    }
}

/// One member of a group: a device, or one of its device types (`deviceTypeKey`).
public struct GroupMember: Sendable, Hashable, Codable, CustomStringConvertible {
    public var device: DeviceID
    public var deviceTypeKey: String?

    public init(device: DeviceID, deviceTypeKey: String? = nil) {
        self.device = device
        self.deviceTypeKey = deviceTypeKey
    }

    public var description: String { deviceTypeKey.map { "\(device.rawValue)/\($0)" } ?? device.rawValue }
}

/// HomeKit's action set types: four built-in scenes every home has, and the user's own.
public enum SceneKind: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case wakeUp, sleep, leavingHome, arrivingHome, user

    /// The name a home's built-in scene starts with (the user may rename it).
    public var builtInName: String? {
        switch self {
        case .wakeUp: "Good Morning"
        case .sleep: "Good Night"
        case .leavingHome: "Leave Home"
        case .arrivingHome: "Arrive Home"
        case .user: nil
        }
    }

    public var description: String { rawValue }
}

/// HomeKit's action set: a named list of attribute writes and trait commands run together
/// ("Movie night"). Built-in scenes cannot be removed, only renamed and filled.
public struct Scene: Sendable, Hashable, Identifiable, Codable {
    public let id: SceneID
    public internal(set) var name: String
    public let kind: SceneKind
    public internal(set) var actions: [SceneAction]

    public init(id: SceneID, name: String, kind: SceneKind, actions: [SceneAction]) {
        self.id = id
        self.name = name
        self.kind = kind
        self.actions = actions
    }
}

/// One action of a scene: on a device's trait (in one device type when given), write an
/// attribute or invoke a command — the two forms of a unified command.
public struct SceneAction: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What the action does to the trait.
    public enum Operation: Sendable, Hashable, Codable {
        case write(attribute: String, value: AttributeValue)
        case invoke(command: String, arguments: [String: AttributeValue])
    }

    public var device: DeviceID
    public var deviceTypeKey: String?
    public var trait: TraitID
    public var operation: Operation

    public init(device: DeviceID, deviceTypeKey: String? = nil, trait: TraitID, operation: Operation) {
        self.device = device
        self.deviceTypeKey = deviceTypeKey
        self.trait = trait
        self.operation = operation
    }

    public var description: String {
        let target = deviceTypeKey.map { "\(device.rawValue)/\($0)" } ?? device.rawValue
        switch operation {
        case .write(let attribute, let value): return "\(target) \(trait).\(attribute) = \(value)"
        case .invoke(let command, let arguments):
            let text = arguments.keys.sorted().map { "\($0)=\(arguments[$0]!)" }.joined(separator: ", ")
            return "\(target) \(trait).\(command)(\(text))"
        }
    }
}
