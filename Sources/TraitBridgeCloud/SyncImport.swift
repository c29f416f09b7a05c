public import FoundationEssentials
public import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// The outcome of importing a SYNC response: the devices that could be imported and every problem,
/// each with its JSON path. One bad device never stops the others.
public struct SyncImport: Sendable, Equatable {
    public var requestID: String?
    public var agentUserID: String?
    public var devices: [ImportedCloudDevice] = []
    public var problems: [CloudProblem] = []

    public init(requestID: String? = nil, agentUserID: String? = nil) {
        self.requestID = requestID
        self.agentUserID = agentUserID
    }
}

/// One device of a SYNC, as TraitBridge holds it, with what the SYNC said beyond the model.
public struct ImportedCloudDevice: Sendable, Equatable {
    public var device: Device
    public var origin: CloudDeviceOrigin
    /// Where the device is in the payload (`payload.devices[2]`).
    public var path: JSONPath

    public init(device: Device, origin: CloudDeviceOrigin, path: JSONPath) {
        self.device = device
        self.origin = origin
        self.path = path
    }
}

/// How ``GoogleC2C/importSync(_:source:now:reading:)`` reads the text; the result is the same.
public enum SyncReading: Sendable {
    /// Each device is parsed, decoded and released in turn (a 10 000-device SYNC never exists as
    /// one json-c tree); any text in another shape, or not JSON, is read whole.
    case elementByElement
    /// The whole text is parsed first (kept so that tests and the fuzzer can compare the two).
    case whole
}

extension GoogleC2C {
    /// Imports a SYNC response: `{requestId, payload: {agentUserId, devices}}`, the payload alone
    /// (`{devices}`), or the devices array alone. `source` names the input in errors (a file path, `-`).
    public func importSync(
        _ bytes: [UInt8], source: String, now: Date, reading: SyncReading = .elementByElement
    ) throws(CloudError) -> SyncImport {
        if reading == .elementByElement, let result = importSyncByElement(bytes, now: now) { return result }
        let root = try Self.parse(bytes, source: source)
        var result = SyncImport()
        let devices: JSON
        let devicesPath: JSONPath
        if root.kind == .array {
            (devices, devicesPath) = (root, .root)
        } else if root.kind == .object, let payload = root["payload"], payload.kind == .object {
            result.requestID = root["requestId"]?.string
            result.agentUserID = payload["agentUserId"]?.string
            guard let list = payload["devices"], list.kind == .array else {
                throw .wrongShape(source: source, path: "payload.devices", expected: "an array of devices")
            }
            (devices, devicesPath) = (list, "payload.devices")
        } else if root.kind == .object, let list = root["devices"], list.kind == .array {
            result.agentUserID = root["agentUserId"]?.string
            (devices, devicesPath) = (list, "devices")
        } else {
            throw .wrongShape(
                source: source, path: .root,
                expected: "a SYNC response {requestId, payload: {agentUserId, devices: [...]}}, "
                    + "its payload {devices: [...]}, or a devices array")
        }
        var list = SyncDeviceList(c2c: self, path: devicesPath, now: now)
        for (index, element) in devices.elements.enumerated() { list.add(element, at: index, to: &result) }
        return result
    }

    /// The element-by-element reading: the devices array is found by its members' byte ranges,
    /// the rest of the text is parsed with `[]` in its place, then each device is parsed on its own.
    /// `nil` (nothing decided) when the shape is not one of the three with unique keys written
    /// without escapes, or when anything does not parse: the whole reading then says what it is.
    func importSyncByElement(_ bytes: [UInt8], now: Date) -> SyncImport? {
        bytes.withUnsafeBytes { buffer -> SyncImport? in
            guard let (range, path, depth) = Self.devicesRange(buffer) else { return nil }
            var result = SyncImport()
            if path != .root {
                // Everything around the list, checked as the whole reading would (same depth bound).
                let around = Array(buffer[..<range.lowerBound]) + Array("[]".utf8) + Array(buffer[range.upperBound...])
                guard let root = try? JSONDocument.parse(around, maxDepth: 128).root else { return nil }
                let payload = path == "payload.devices" ? root["payload"] : root
                guard let payload, payload.kind == .object, payload["devices"]?.elements.isEmpty == true else {
                    return nil
                }
                if path == "payload.devices" { result.requestID = root["requestId"]?.string }
                result.agentUserID = payload["agentUserId"]?.string
            }
            var list = SyncDeviceList(c2c: self, path: path, now: now)
            // The whole text may nest 128 deep; an element of a list at `depth` gets what remains.
            let read = try? JSONDocument.forEachElement(
                ofArray: UnsafeRawBufferPointer(rebasing: buffer[range]), maxDepth: 128 - depth
            ) { index, element in list.add(element, at: index, to: &result) }
            return read == true ? result : nil
        }
    }

    /// Where the devices array is: its bytes, its path and how many containers enclose it.
    private static func devicesRange(_ buffer: UnsafeRawBufferPointer) -> (Range<Int>, JSONPath, Int)? {
        guard let first = buffer.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
        if first == UInt8(ascii: "[") { return (0..<buffer.count, .root, 0) }
        guard let members = uniqueMembers(buffer) else { return nil }
        if let payload = members["payload"] {
            guard buffer[payload.lowerBound] == UInt8(ascii: "{"),
                let inner = uniqueMembers(UnsafeRawBufferPointer(rebasing: buffer[payload])),
                let list = inner["devices"], buffer[payload.lowerBound + list.lowerBound] == UInt8(ascii: "[")
            else { return nil }
            return (
                (payload.lowerBound + list.lowerBound)..<(payload.lowerBound + list.upperBound), "payload.devices", 2
            )
        }
        guard let list = members["devices"], buffer[list.lowerBound] == UInt8(ascii: "[") else { return nil }
        return (list, "devices", 1)
    }

    /// An object's members by key; `nil` when a key repeats (json-c keeps the last: read whole).
    private static func uniqueMembers(_ buffer: UnsafeRawBufferPointer) -> [String: Range<Int>]? {
        guard let members = JSONDocument.memberRanges(inObject: buffer) else { return nil }
        var byKey: [String: Range<Int>] = [:]
        for member in members where byKey.updateValue(member.value, forKey: member.key) != nil { return nil }
        return members.contains { $0.value.isEmpty } ? nil : byKey
    }
}

/// The devices of one SYNC list, decoded in payload order; the second device with an id is the
/// one refused as a duplicate.
private struct SyncDeviceList {
    let c2c: GoogleC2C
    let path: JSONPath
    let now: Date
    var first: [String: Int] = [:]

    init(c2c: GoogleC2C, path: JSONPath, now: Date) {
        self.c2c = c2c
        self.path = path
        self.now = now
    }

    mutating func add(_ element: JSON, at index: Int, to result: inout SyncImport) {
        var duplicateOf: JSONPath? = nil
        if let id = element["id"]?.string, !id.isEmpty {
            if let earlier = first[id] { duplicateOf = path.appending(earlier) } else { first[id] = index }
        }
        var decoder = SyncDeviceDecoder(c2c: c2c, path: path.appending(index))
        if let device = decoder.decode(element, duplicateOf: duplicateOf, now: now) { result.devices.append(device) }
        result.problems += decoder.problems
    }
}
