public import TraitBridgeJSON
public import TraitBridgeModel
import TraitBridgeMapping

/// What the cloud says about one device now: from a QUERY response, an EXECUTE response group, or
/// a Report State body. States keep Google's names and casing until ``GoogleC2C/apply(_:to:now:)``.
public struct CloudDeviceReport: Sendable {
    public var c2cID: String
    public var online: Bool?
    /// `SUCCESS`, `OFFLINE`, `EXCEPTIONS`, `ERROR` (or `PENDING` from an EXECUTE response).
    public var status: String?
    public var errorCode: String?
    /// Every other member of the device's entry (`on`, `brightness`, `color`…).
    public var states: [String: AttributeValue]
    public var path: JSONPath
    /// From an EXECUTE response group: an ERROR there is about the command (`challengeNeeded`,
    /// `valueOutOfRange`), not the device's connectivity, unless the code says it is offline.
    public var isCommandResult: Bool

    public init(
        c2cID: String, online: Bool? = nil, status: String? = nil, errorCode: String? = nil, states: [String: AttributeValue] = [:],
        path: JSONPath = .root, isCommandResult: Bool = false
    ) {
        self.isCommandResult = isCommandResult
        self.c2cID = c2cID
        self.online = online
        self.status = status
        self.errorCode = errorCode
        self.states = states
        self.path = path
    }
}

/// The reports of one QUERY (or EXECUTE, or Report State) payload, with the problems found.
public struct CloudReportImport: Sendable {
    public var requestID: String?
    public var reports: [CloudDeviceReport] = []
    public var problems: [CloudProblem] = []
}

extension GoogleC2C {
    /// Reads a QUERY response (`{requestId, payload: {devices: {<id>: {...}}}}` or its payload), an
    /// EXECUTE response (`payload.commands[]` groups) or a Report State body (`payload.devices.states`).
    public func importReports(_ bytes: [UInt8], source: String) throws(CloudError) -> CloudReportImport {
        let root = try Self.parse(bytes, source: source)
        var result = CloudReportImport()
        result.requestID = root["requestId"]?.string
        let (payload, payloadPath): (JSON, JSONPath) = root["payload"].map { ($0, "payload") } ?? (root, .root)
        if let commands = payload["commands"], commands.kind == .array {
            for (index, group) in commands.elements.enumerated() {
                let path = payloadPath.appending("commands").appending(index)
                guard let ids = group["ids"], ids.kind == .array else {
                    result.problems.append(CloudProblem(path, "expected 'ids', an array of device ids"))
                    continue
                }
                let states = group["states"].map(Self.states(of:)) ?? [:]
                for id in ids.elements.compactMap(\.string) {
                    var report = CloudDeviceReport(
                        c2cID: id, status: group["status"]?.string, errorCode: group["errorCode"]?.string, states: states, path: path, isCommandResult: true)
                    if case .bool(let online)? = report.states.removeValue(forKey: "online") { report.online = online }
                    result.reports.append(report)
                }
            }
            return result
        }
        guard var devices = payload["devices"], devices.kind == .object else {
            throw .wrongShape(source: source, path: payloadPath.appending("devices"), expected: "a QUERY response {payload: {devices: {<id>: {online, status, …states}}}}, an EXECUTE response {payload: {commands: [...]}}, or a Report State body {payload: {devices: {states: {…}}}}")
        }
        var devicesPath = payloadPath.appending("devices")
        if let states = devices["states"], states.kind == .object, devices.count <= 2 {
            (devices, devicesPath) = (states, devicesPath.appending("states"))  // Report State
        }
        for (id, entry) in devices.members {
            let path = devicesPath.appending(id)
            guard entry.kind == .object else {
                result.problems.append(CloudProblem(path, "expected the device's states object, found \(entry.kind)"))
                continue
            }
            var report = CloudDeviceReport(c2cID: id, states: Self.states(of: entry), path: path)
            report.states.removeValue(forKey: "online")
            report.states.removeValue(forKey: "status")
            report.states.removeValue(forKey: "errorCode")
            if let online = entry["online"] {
                if let flag = online.bool { report.online = flag } else { result.problems.append(CloudProblem(path.appending("online"), "expected true or false, found \(online.kind)")) }
            }
            report.status = entry["status"]?.string
            report.errorCode = entry["errorCode"]?.string
            if report.online == nil && report.status == nil {
                result.problems.append(CloudProblem(path, "neither 'online' nor 'status' given: connectivity unchanged"))
            }
            result.reports.append(report)
        }
        return result
    }

    static func states(of entry: JSON) -> [String: AttributeValue] {
        guard case .structure(let fields) = AttributeValue(json: entry) else { return [:] }
        return fields
    }

    /// The connectivity a report means for the cloud's traits, or `nil` when it says nothing.
    ///
    /// `online: false`, status `OFFLINE` or errorCode `deviceOffline` → offline; `ERROR` → unknown
    /// (the cloud could not read the device), except in an EXECUTE result, where an error is about
    /// the command (`challengeNeeded`, `valueOutOfRange`): it changes nothing unless it says the
    /// device is offline; otherwise online. The reason keeps the status and Google's errorCode.
    public func connectivity(of report: CloudDeviceReport) -> (state: TraitConnectivityState, reason: ConnectivityReason)? {
        guard report.online != nil || report.status != nil else { return nil }
        let saysOffline = report.errorCode == "deviceOffline" || report.errorCode == "offline"
        let status = report.status ?? (report.online == false ? "OFFLINE" : "SUCCESS")
        let commandFailed = status == "ERROR" || status == "EXCEPTIONS"
        if report.isCommandResult && report.online != false && commandFailed && !saysOffline { return nil }
        let online = report.online ?? (status != "OFFLINE" && !saysOffline)
        let reason = ConnectivityReason.cloudReported(isOnline: online, status: status, errorCode: report.errorCode)
        if !online || status == "OFFLINE" { return (.offline, reason) }
        if status == "ERROR" { return (.unknown, reason) }
        return (.online, reason)
    }
}
