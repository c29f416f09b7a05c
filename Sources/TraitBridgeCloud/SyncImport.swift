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
        var devices: [ImportedCloudDevice] = []
        var result = try importSync(bytes, source: source, now: now, reading: reading) { devices.append($0) }
        result.devices = devices
        return result
    }

    /// ``importSync(_:source:now:reading:)`` handing each device to `body` as soon as it is
    /// decoded, in payload order, instead of keeping them (the result's `devices` stays empty): a
    /// dry run of 10 000 devices holds one at a time. When the list turns out not to be JSON
    /// partway, `body` has seen the devices before that point and the error is thrown: a caller
    /// that must not act on half a list collects, and acts once this returns.
    public func importSync(
        _ bytes: [UInt8], source: String, now: Date, reading: SyncReading = .elementByElement,
        each body: (ImportedCloudDevice) -> Void
    ) throws(CloudError) -> SyncImport {
        var list = SyncDeviceList(c2c: self, now: now)
        if reading == .elementByElement, importSyncByElement(bytes, into: &list, body) { return list.result }
        // Read whole; after a list that stopped partway (which the whole parse then refuses:
        // element and whole readings agree), the elements already handed on are not handed again.
        let root = try Self.parse(bytes, source: source)
        let devices: JSON
        if root.kind == .array {
            (devices, list.path) = (root, .root)
        } else if root.kind == .object, let payload = root["payload"], payload.kind == .object {
            list.result.requestID = root["requestId"]?.string
            list.result.agentUserID = payload["agentUserId"]?.string
            guard let array = payload["devices"], array.kind == .array else {
                throw .wrongShape(source: source, path: "payload.devices", expected: "an array of devices")
            }
            (devices, list.path) = (array, "payload.devices")
        } else if root.kind == .object, let array = root["devices"], array.kind == .array {
            list.result.agentUserID = root["agentUserId"]?.string
            (devices, list.path) = (array, "devices")
        } else {
            throw .wrongShape(
                source: source, path: .root,
                expected: "a SYNC response {requestId, payload: {agentUserId, devices: [...]}}, "
                    + "its payload {devices: [...]}, or a devices array")
        }
        for (index, element) in devices.elements.enumerated() where index >= list.handled {
            list.add(element, at: index, body)
        }
        return list.result
    }

    /// The element-by-element reading: the devices array is found by its members' byte ranges,
    /// the rest of the text is parsed with `[]` in its place, then each device is parsed on its own.
    /// `false` (nothing handed on) when the shape is not one of the three with unique keys written
    /// without escapes, or when the text around the list does not parse; `false` after handing on
    /// the devices before it when an element does not parse: the whole reading then says why.
    func importSyncByElement(
        _ bytes: [UInt8], into list: inout SyncDeviceList, _ body: (ImportedCloudDevice) -> Void
    ) -> Bool {
        bytes.withUnsafeBytes { buffer -> Bool in
            guard let (range, path, depth) = Self.devicesRange(buffer) else { return false }
            var result = SyncImport()
            if path != .root {
                // Everything around the list, checked as the whole reading would (same depth bound).
                let around = Array(buffer[..<range.lowerBound]) + Array("[]".utf8) + Array(buffer[range.upperBound...])
                guard let root = try? JSONDocument.parse(around, maxDepth: 128).root else { return false }
                let payload = path == "payload.devices" ? root["payload"] : root
                guard let payload, payload.kind == .object, payload["devices"]?.elements.isEmpty == true else {
                    return false
                }
                if path == "payload.devices" { result.requestID = root["requestId"]?.string }
                result.agentUserID = payload["agentUserId"]?.string
            }
            (list.result, list.path) = (result, path)
            // The whole text may nest 128 deep; an element of a list at `depth` gets what remains.
            let read = try? JSONDocument.forEachElement(
                ofArray: UnsafeRawBufferPointer(rebasing: buffer[range]), maxDepth: 128 - depth
            ) { index, element in list.add(element, at: index, body) }
            return read == true
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
/// one refused as a duplicate. Kept across the two readings, so that a whole reading after an
/// element-by-element one that stopped partway goes on from where it stopped.
struct SyncDeviceList {
    let c2c: GoogleC2C
    let now: Date
    var path: JSONPath = .root
    var result = SyncImport()
    /// How many elements have been decoded (and their devices handed on).
    private(set) var handled = 0
    private var first: [String: Int] = [:]

    init(c2c: GoogleC2C, now: Date) {
        self.c2c = c2c
        self.now = now
    }

    mutating func add(_ element: JSON, at index: Int, _ body: (ImportedCloudDevice) -> Void) {
        var duplicateOf: JSONPath? = nil
        if let id = element["id"]?.string, !id.isEmpty {
            if let earlier = first[id] { duplicateOf = path.appending(earlier) } else { first[id] = index }
        }
        var decoder = SyncDeviceDecoder(c2c: c2c, path: path.appending(index))
        if let device = decoder.decode(element, duplicateOf: duplicateOf, now: now) { body(device) }
        result.problems += decoder.problems
        handled = index + 1
    }
}
