import FoundationEssentials
import GRDB
import GRDBSQLite
public import TraitBridgeModel

/// What the registry keeps of a device, in the model's own terms: enough to put it back at start
/// and publish it before its source speaks. Stored as rows of their own (device, its sources and
/// other ids, its device types, their traits), not as the description the bridge publishes.
public struct DeviceRecord: Sendable, Hashable {
    public var id: DeviceID
    public var name: String
    /// The room the user put it in (`nil`: the home's default room).
    public var roomName: String?
    public var identity: DeviceIdentity
    public var info: DeviceInfo
    public var isMatterDevice: Bool
    /// Every source that describes the device; the first is the one it came from.
    public var sources: [SourceReference]
    public var types: [StoredDeviceType]

    public init(
        id: DeviceID, name: String, roomName: String? = nil, identity: DeviceIdentity = DeviceIdentity(),
        info: DeviceInfo = DeviceInfo(), isMatterDevice: Bool = false, sources: [SourceReference],
        types: [StoredDeviceType] = []
    ) {
        self.id = id
        self.name = name
        self.roomName = roomName
        self.identity = identity
        self.info = info
        self.isMatterDevice = isMatterDevice
        self.sources = sources
        self.types = types
    }
}

/// One device type of a stored device: its key on the device, its id and its traits in order.
public struct StoredDeviceType: Sendable, Hashable {
    public var key: String
    public var type: DeviceTypeID
    public var isPrimaryType: Bool
    public var traits: [StoredTrait]

    public init(key: String, type: DeviceTypeID, isPrimaryType: Bool, traits: [StoredTrait]) {
        self.key = key
        self.type = type
        self.isPrimaryType = isPrimaryType
        self.traits = traits
    }
}

/// One trait of a stored device type: which source feeds it, and what that source fed and
/// accepted, so that a restored device is described as before until its source speaks again.
public struct StoredTrait: Sendable, Hashable {
    public var id: TraitID
    public var source: SourceReference?
    /// The attributes the source feeds with their metadata, as the JSON object the device's
    /// description publishes (`{"onOff":{"format":"bool",…}}`); the engine reads it once per
    /// distinct text (a few dozen over thousands of devices).
    public var attributes: String
    /// The unified commands the trait accepts through its source.
    public var commands: [String]

    public init(id: TraitID, source: SourceReference?, attributes: String = "{}", commands: [String] = []) {
        self.id = id
        self.source = source
        self.attributes = attributes
        self.commands = commands
    }
}

/// Text read whole: GRDB reads a text column up to its first NUL, and names and versions from
/// devices hold one now and then (a real zigbee2mqtt device's `swVersion` is `"2019\u{0}www."`).
/// ``RowWriter`` binds text with its length; this reads it back with its length (or a blob's bytes).
struct StoredText: DatabaseValueConvertible, StatementColumnConvertible {
    var value: String

    init(_ value: String) { self.value = value }

    var databaseValue: DatabaseValue { Data(value.utf8).databaseValue }

    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> StoredText? {
        switch dbValue.storage {
        case .blob(let data): StoredText(String(decoding: data, as: UTF8.self))
        case .string(let text): StoredText(text)
        default: nil
        }
    }

    /// Straight from the statement's column (a restore reads some 100 000 of them): the bytes
    /// SQLite holds, however many, whether written as text or as a blob.
    init?(sqliteStatement: SQLiteStatement, index: CInt) {
        let type = sqlite3_column_type(sqliteStatement, index)
        guard type == SQLITE_TEXT || type == SQLITE_BLOB else { return nil }
        let start =
            type == SQLITE_BLOB
            ? sqlite3_column_blob(sqliteStatement, index)
            : UnsafeRawPointer(sqlite3_column_text(sqliteStatement, index))
        let count = Int(sqlite3_column_bytes(sqliteStatement, index))
        guard let start, count > 0 else {
            value = ""
            return
        }
        value = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    }
}

/// What a SYNC said about an imported cloud device beyond the model, so that the bridge gives the
/// cloud back what it described (exports, EXECUTE's `customData`). The device itself is the
/// ``DeviceRecord`` stored under ``deviceID``. Google's own objects (`attributes`, `customData`,
/// `deviceInfo`) are kept as the JSON text the cloud sent: the bridge passes them on, it never
/// reads them as its own.
public struct CloudOriginRecord: Sendable, Hashable {
    /// The device's id in the cloud (the SYNC entry's `id`).
    public var c2cID: String
    /// TraitBridge's id of the device as imported (`c2c-<id>`).
    public var deviceID: DeviceID
    /// The SYNC's `name.name`.
    public var name: String
    public var type: String
    public var traits: [String]
    public var attributes: String
    public var customData: String?
    public var defaultNames: [String]
    public var nicknames: [String]
    public var roomHint: String?
    public var structureHint: String?
    public var willReportState: Bool
    public var notificationSupportedByAgent: Bool?
    public var deviceInfo: String?
    /// The values the SYNC's attributes gave the device's traits (ranges, capabilities), as a JSON
    /// object by trait address (`{"light/matter.ColorControl":{"colorCapabilities":16}}`).
    public var traitValues: String

    public init(
        c2cID: String, deviceID: DeviceID, name: String, type: String, traits: [String], attributes: String = "{}",
        customData: String? = nil, defaultNames: [String] = [], nicknames: [String] = [], roomHint: String? = nil,
        structureHint: String? = nil, willReportState: Bool = false, notificationSupportedByAgent: Bool? = nil,
        deviceInfo: String? = nil, traitValues: String = "{}"
    ) {
        self.c2cID = c2cID
        self.deviceID = deviceID
        self.name = name
        self.type = type
        self.traits = traits
        self.attributes = attributes
        self.customData = customData
        self.defaultNames = defaultNames
        self.nicknames = nicknames
        self.roomHint = roomHint
        self.structureHint = structureHint
        self.willReportState = willReportState
        self.notificationSupportedByAgent = notificationSupportedByAgent
        self.deviceInfo = deviceInfo
        self.traitValues = traitValues
    }
}
