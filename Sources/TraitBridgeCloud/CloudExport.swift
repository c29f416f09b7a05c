public import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

extension GoogleC2C {
    /// A SYNC response for `devices`. Devices with no trait Google can express are left out and
    /// named in `skipped`, with the reason.
    public func syncResponse(_ devices: [CloudExportInput], agentUserID: String, requestID: String) -> (
        response: JSONValue, skipped: [String]
    ) {
        var entries: [JSONValue] = []
        var skipped: [String] = []
        entries.reserveCapacity(devices.count)
        for input in devices {
            if let entry = syncEntry(input) {
                entries.append(.object(entry))
            } else {
                skipped.append("\(input.device.id): no trait has a Cloud-to-cloud equivalent")
            }
        }
        var payload = JSONObject()
        payload.append("agentUserId", .string(agentUserID))
        payload.append("devices", .array(entries))
        return (.object(["requestId": .string(requestID), "payload": .object(payload)]), skipped)
    }

    /// A QUERY response: per device `online`, `status`, and the states of every trait; the ids in
    /// `missing` (asked for, not held) are answered `deviceNotFound`.
    public func queryResponse(_ devices: [CloudExportInput], requestID: String, missing: [String] = []) -> JSONValue {
        var entries = JSONObject()
        entries.reserveCapacity(devices.count)
        for input in devices { entries.append(input.c2cID, .object(queryEntry(input))) }
        for id in missing {
            entries.append(
                id, ["online": false, "status": "ERROR", "errorCode": "deviceNotFound"])
        }
        return .object(["requestId": .string(requestID), "payload": .object(["devices": .object(entries)])])
    }

    /// One device's QUERY answer, also what Report State sends: `online`, `status`, `errorCode`
    /// from its connectivity, then the states of every trait it declares.
    public func queryEntry(_ input: CloudExportInput) -> JSONObject {
        var entry = JSONObject()
        let connectivity = input.device.sourceConnectivity.connectivityState
        switch connectivity {
        case .online, .partiallyOnline:
            entry.append("online", .bool(true))
            entry.append("status", .string("SUCCESS"))
        case .offline:
            entry.append("online", .bool(false))
            entry.append("status", .string("OFFLINE"))
            entry.append("errorCode", .string("deviceOffline"))
        case .unknown:
            entry.append("online", .bool(false))
            entry.append("status", .string("ERROR"))
            entry.append("errorCode", .string("deviceNotReady"))
        }
        for (key, value) in states(of: input).members { entry.append(key, value) }
        return entry
    }

    /// Whether SYNC lists the device (it has a trait Google can express): Report State must not
    /// name a device Google was never given.
    public func isExported(_ input: CloudExportInput) -> Bool { syncEntry(input) != nil }

    /// One SYNC device entry; `nil` when no trait can be expressed.
    func syncEntry(_ input: CloudExportInput) -> JSONObject? {
        let device = input.device
        let derived = derivedTraits(
            device, skippingCloudTraits: input.origin != nil, metadata: input.metadata, commandable: input.commandable)
        var traits = input.origin?.traits ?? []
        var attributes = input.origin?.attributes ?? JSONObject()
        for (name, syncAttributes) in derived where !traits.contains(Self.traitPrefix + name) {
            traits.append(Self.traitPrefix + name)
            for (key, value) in syncAttributes.members where attributes[key] == nil { attributes.append(key, value) }
        }
        guard !traits.isEmpty else { return nil }
        var entry = JSONObject()
        entry.append("id", .string(input.c2cID))
        entry.append("type", .string(input.origin?.type ?? Self.typePrefix + exportType(device)))
        entry.append("traits", .array(traits.map { .string($0) }))
        var name = JSONObject()
        if let defaults = input.origin?.defaultNames, !defaults.isEmpty {
            name.append("defaultNames", .array(defaults.map { .string($0) }))
        }
        name.append("name", .string(device.name))
        if let nicknames = input.origin?.nicknames, !nicknames.isEmpty {
            name.append("nicknames", .array(nicknames.map { .string($0) }))
        }
        entry.append("name", .object(name))
        entry.append("willReportState", .bool(input.origin?.willReportState ?? true))
        if let flag = input.origin?.notificationSupportedByAgent {
            entry.append("notificationSupportedByAgent", .bool(flag))
        }
        if let room = input.roomName ?? input.origin?.roomHint { entry.append("roomHint", .string(room)) }
        if let structure = input.origin?.structureHint { entry.append("structureHint", .string(structure)) }
        if let info = input.origin?.deviceInfo {
            entry.append("deviceInfo", .object(info))
        } else {
            var info = JSONObject()
            if let value = device.info.manufacturer { info.append("manufacturer", .string(value)) }
            if let value = device.info.model { info.append("model", .string(value)) }
            if let value = device.info.hardwareVersion { info.append("hwVersion", .string(value)) }
            if let value = device.info.softwareVersion { info.append("swVersion", .string(value)) }
            if !info.isEmpty { entry.append("deviceInfo", .object(info)) }
        }
        if !attributes.isEmpty { entry.append("attributes", .object(attributes)) }
        if let custom = input.origin?.customData { entry.append("customData", custom) }
        let others = device.identity.otherDeviceIDs
        if !others.isEmpty {
            entry.append(
                "otherDeviceIds",
                .array(
                    others.map { other in
                        var object = JSONObject()
                        if let agent = other.agentID { object.append("agentId", .string(agent)) }
                        object.append("deviceId", .string(other.deviceID))
                        return .object(object)
                    }))
        }
        if let unique = device.identity.uniqueID { entry.append("matterUniqueId", .string(unique)) }
        if let vendor = device.identity.vendorID { entry.append("matterOriginalVendorId", .string(Self.hex(vendor))) }
        if let product = device.identity.productID {
            entry.append("matterOriginalProductId", .string(Self.hex(product)))
        }
        return entry
    }

    static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The C2C type of a device without a SYNC origin: the table's type whose candidates hold the
    /// primary device type (first in file order), sensors as SENSOR, generated google types by their name; else SWITCH.
    func exportType(_ device: Device) -> String {
        guard let primary = device.primaryType?.typeID else { return "SWITCH" }
        if let name = table.typeOrder.first(where: { table.types[$0]?.contains { $0.deviceType == primary } == true }) {
            return name
        }
        if let short = googleTypes.first(where: { $0.value == primary })?.key { return short }
        if primary.namespace == .matter, primary.name.hasSuffix("Sensor") || primary.name == "WaterLeakDetector" {
            return "SENSOR"
        }
        if primary == .matter("SmokeCoAlarm") { return "SMOKE_DETECTOR" }
        return "SWITCH"
    }
}

extension GoogleC2C {
    /// The SYNC entry of an imported device as it was imported (what the registry keeps).
    public func syncEntryBytes(for imported: ImportedCloudDevice) -> [UInt8]? {
        syncEntry(
            CloudExportInput(device: imported.device, roomName: imported.origin.roomHint, origin: imported.origin)
        )
        .map { JSONValue.object($0).serializedBytes() }
    }
}
