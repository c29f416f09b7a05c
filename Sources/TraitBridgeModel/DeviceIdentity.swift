/// A stable device identifier, safe to use as one MQTT topic level.
///
/// Derived from the source and the native id (`z2m-0x00158d0001a2b3c4`, `c2c-kitchen-light`) and
/// never reused, so retained topics, rooms and names survive restarts and renames.
public struct DeviceID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: String
    /// The text's hash, made once (a device's id is looked up ten times a message).
    private let textHash: Int

    /// Accepts 1–128 characters of `A–Z a–z 0–9 . _ -`, not starting with `.`.
    public init(_ rawValue: String) throws(ModelError) {
        guard Self.isValid(rawValue) else { throw .invalidDeviceID(rawValue) }
        self.init(unchecked: rawValue)
    }

    public static func == (lhs: DeviceID, rhs: DeviceID) -> Bool {
        lhs.textHash == rhs.textHash && lhs.rawValue == rhs.rawValue
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(textHash) }

    /// Builds a valid id from arbitrary native ids: lower-cases, replaces every other character
    /// with `-`, and keeps the result under 128 characters.
    public static func derived(source: String, nativeID: String) -> DeviceID {
        let joined = "\(source)-\(nativeID)"
        if joined.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII (nearly every id): the same rules byte by byte, one byte per character.
            var bytes = joined.utf8.prefix(128).map { byte -> UInt8 in
                let lower = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                return isAllowed(Unicode.Scalar(lower)) ? lower : UInt8(ascii: "-")
            }
            if bytes.first == UInt8(ascii: ".") { bytes[0] = UInt8(ascii: "-") }
            return DeviceID(unchecked: String(decoding: bytes, as: UTF8.self))
        }
        var text = joined.lowercased()
        text = String(text.unicodeScalars.map { Self.isAllowed($0) ? Character($0) : "-" })
        if text.hasPrefix(".") { text = "-" + text.dropFirst() }
        return DeviceID(unchecked: String(text.prefix(128)))
    }

    private init(unchecked rawValue: String) {
        self.rawValue = rawValue
        textHash = IdentifierHash.of(rawValue)
    }

    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128 && !text.hasPrefix(".") && text.unicodeScalars.allSatisfy(isAllowed)
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || scalar == "." || scalar == "_" || scalar == "-"
    }

    public var description: String { rawValue }
    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard Self.isValid(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: ModelError.invalidDeviceID(text).description))
        }
        self.init(unchecked: text)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// Who a device is, across ecosystems: what the merge of cloud and local views keys on.
///
/// The fields of Google's SYNC (`matterOriginalVendorId`, `matterOriginalProductId`,
/// `matterUniqueId`, `otherDeviceIds`) and of Matter's Basic Information (serial, unique id).
public struct DeviceIdentity: Sendable, Hashable, Codable {
    /// Matter vendor id (CSA-assigned, 16 bits).
    public var vendorID: UInt16?
    /// Matter product id (16 bits).
    public var productID: UInt16?
    /// A persistent unique id (Matter `UniqueID`, Google `matterUniqueId`, a HA `unique_id`).
    public var uniqueID: String?
    public var serialNumber: String?
    /// Ids other agents know the device by (Google `otherDeviceIds`), also IEEE addresses and MACs.
    public var otherDeviceIDs: [OtherDeviceID]

    public init(
        vendorID: UInt16? = nil,
        productID: UInt16? = nil,
        uniqueID: String? = nil,
        serialNumber: String? = nil,
        otherDeviceIDs: [OtherDeviceID] = []
    ) {
        self.vendorID = vendorID
        self.productID = productID
        self.uniqueID = uniqueID
        self.serialNumber = serialNumber
        self.otherDeviceIDs = otherDeviceIDs
    }

    /// Whether two identities name the same physical device: same unique id, same serial (with
    /// the same vendor when both know it), or an id of one listed among the other's other ids.
    public func matches(_ other: DeviceIdentity) -> Bool {
        if let uniqueID, !uniqueID.isEmpty, uniqueID == other.uniqueID { return true }
        if let serialNumber, !serialNumber.isEmpty, serialNumber == other.serialNumber,
            vendorID == nil || other.vendorID == nil || vendorID == other.vendorID
        {
            return true
        }
        let mine = Set(otherDeviceIDs.map(\.deviceID) + [uniqueID].compactMap { $0 })
        let theirs = Set(other.otherDeviceIDs.map(\.deviceID) + [other.uniqueID].compactMap { $0 })
        return !mine.isDisjoint(with: theirs.filter { !$0.isEmpty })
    }
}

/// One entry of Google's `otherDeviceIds`: the id another agent (a local hub) uses.
public struct OtherDeviceID: Sendable, Hashable, Codable {
    public var agentID: String?
    public var deviceID: String

    public init(agentID: String? = nil, deviceID: String) {
        self.agentID = agentID
        self.deviceID = deviceID
    }
}

/// What the device says about itself (Matter Basic Information, Google `deviceInfo`).
public struct DeviceInfo: Sendable, Hashable, Codable {
    public var manufacturer: String?
    public var model: String?
    public var hardwareVersion: String?
    public var softwareVersion: String?

    public init(
        manufacturer: String? = nil, model: String? = nil, hardwareVersion: String? = nil,
        softwareVersion: String? = nil
    ) {
        self.manufacturer = manufacturer
        self.model = model
        self.hardwareVersion = hardwareVersion
        self.softwareVersion = softwareVersion
    }
}
