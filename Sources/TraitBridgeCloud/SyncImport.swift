public import FoundationEssentials
public import TraitBridgeJSON
public import TraitBridgeModel
import TraitBridgeMapping

/// The outcome of importing a SYNC response: the devices that could be imported and every problem,
/// each with its JSON path. One bad device never stops the others.
public struct SyncImport: Sendable {
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
public struct ImportedCloudDevice: Sendable {
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

extension GoogleC2C {
    /// Imports a SYNC response: `{requestId, payload: {agentUserId, devices}}`, the payload alone
    /// (`{devices}`), or the devices array alone. `source` names the input in errors (a file path, `-`).
    public func importSync(_ bytes: [UInt8], source: String, now: Date) throws(CloudError) -> SyncImport {
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
            throw .wrongShape(source: source, path: .root, expected: "a SYNC response {requestId, payload: {agentUserId, devices: [...]}}, its payload {devices: [...]}, or a devices array")
        }
        let elements = devices.elements
        // Duplicates first, in payload order: the second device with an id is the one refused.
        var first: [String: Int] = [:]
        var duplicateOf: [Int: JSONPath] = [:]
        for (index, element) in elements.enumerated() {
            guard let id = element["id"]?.string, !id.isEmpty else { continue }
            if let earlier = first[id] { duplicateOf[index] = devicesPath.appending(earlier) } else { first[id] = index }
        }
        for (index, element) in elements.enumerated() {
            var decoder = SyncDeviceDecoder(c2c: self, path: devicesPath.appending(index))
            if let device = decoder.decode(element, duplicateOf: duplicateOf[index], now: now) { result.devices.append(device) }
            result.problems += decoder.problems
        }
        return result
    }
}
