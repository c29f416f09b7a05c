import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// Decodes one device of a SYNC: checks every field, chooses the device type, converts attributes.
struct SyncDeviceDecoder {
    let c2c: GoogleC2C
    let path: JSONPath
    private(set) var problems: [CloudProblem] = []

    static let fields: Set<String> = [
        "id", "type", "traits", "name", "willReportState", "notificationSupportedByAgent", "roomHint", "structureHint",
        "deviceInfo", "attributes", "customData", "otherDeviceIds", "matterUniqueId", "matterOriginalVendorId", "matterOriginalProductId",
    ]

    init(c2c: GoogleC2C, path: JSONPath) {
        self.c2c = c2c
        self.path = path
    }

    /// A problem at `relative` (a path written by this decoder, such as `traits[2]` or `name`).
    mutating func problem(_ relative: String?, _ message: String, rejects: Bool = false) {
        var where_ = path
        if let relative { where_.components += (JSONPath(parsing: relative) ?? JSONPath(components: [.key(relative)])).components }
        problems.append(CloudProblem(where_, message, rejectsDevice: rejects))
    }

    /// A problem at `attributes.<key>` (the key is the payload's, so it is never parsed as a path).
    mutating func problem(attribute key: String, _ message: String) {
        problems.append(CloudProblem(path.appending("attributes").appending(key), message))
    }

    /// The device, or `nil` when it is rejected; `duplicateOf` is the earlier device with its id.
    mutating func decode(_ element: JSON, duplicateOf: JSONPath?, now: Date) -> ImportedCloudDevice? {
        guard element.kind == .object else {
            problem(nil, "expected a device object, found \(element.kind)", rejects: true)
            return nil
        }
        for (key, _) in element.members where !Self.fields.contains(key) {
            problem(key, "unknown field '\(key)' (ignored); a SYNC device has: \(Self.fields.sorted().joined(separator: ", "))")
        }
        guard let id = requiredString(element, "id") else { return nil }
        if let first = duplicateOf {
            problem("id", "duplicate id '\(id)' (first at \(first))", rejects: true)
            return nil
        }
        guard let typeText = requiredString(element, "type") else { return nil }
        let shortType = GoogleC2C.shortName(typeText)
        guard typeText.hasPrefix(GoogleC2C.typePrefix), let googleType = c2c.googleTypes[shortType] else {
            problem("type", "unknown device type '\(typeText)'; expected one of Google's action.devices.types.* (LIGHT, OUTLET, THERMOSTAT…)", rejects: true)
            return nil
        }
        guard let traitList = element["traits"], traitList.kind == .array else {
            problem(element["traits"] == nil ? nil : "traits", element["traits"] == nil ? "missing required field 'traits'" : "'traits' must be an array of trait names", rejects: true)
            return nil
        }
        // A missing name has a safe default (Google's own Matter-dedup sample omits it): the id.
        let nameObject = element["name"]
        var name = id
        if let given = nameObject?["name"]?.string, !given.isEmpty {
            name = given
        } else {
            problem(nameObject == nil ? nil : "name", (nameObject == nil ? "missing required field 'name'" : "'name' must be an object with a non-empty string 'name'") + "; named after its id '\(id)'")
        }

        let traits = declaredTraits(traitList)
        var origin = CloudDeviceOrigin(c2cID: id, type: typeText, traits: traits.map { GoogleC2C.traitPrefix + $0 })
        if let nameObject, nameObject.kind == .object {
            origin.defaultNames = strings(nameObject, "defaultNames", at: "name")
            origin.nicknames = strings(nameObject, "nicknames", at: "name")
        }
        if let flag = element["willReportState"] {
            if let value = flag.bool { origin.willReportState = value } else { problem("willReportState", "expected true or false, found \(flag.kind)") }
        } else {
            problem(nil, "missing required field 'willReportState' (imported as false: the cloud is polled with QUERY)")
        }
        origin.notificationSupportedByAgent = optionalBool(element, "notificationSupportedByAgent")
        origin.roomHint = optionalString(element, "roomHint")
        origin.structureHint = optionalString(element, "structureHint")
        if let custom = element["customData"] {
            if custom.kind == .object { origin.customData = custom.value } else { problem("customData", "expected an object, found \(custom.kind) (dropped)") }
        }
        var info = DeviceInfo()
        if let infoObject = element["deviceInfo"] {
            if infoObject.kind == .object, case .object(let object) = infoObject.value {
                origin.deviceInfo = object
                info.manufacturer = optionalString(infoObject, "manufacturer", at: "deviceInfo")
                info.model = optionalString(infoObject, "model", at: "deviceInfo")
                info.hardwareVersion = optionalString(infoObject, "hwVersion", at: "deviceInfo")
                info.softwareVersion = optionalString(infoObject, "swVersion", at: "deviceInfo")
            } else {
                problem("deviceInfo", "expected an object, found \(infoObject.kind) (dropped)")
            }
        }
        let identity = decodeIdentity(element)
        let attributes = sortAttributes(element["attributes"], traits: traits)
        origin.attributes = attributes.original

        // The device type: the first candidate of the table that fits, else the generated google type.
        let chosen = chooseDeviceType(shortType, traits: Set(traits), attributes: attributes.present)
        let typeID = chosen ?? googleType
        guard let definition = c2c.catalog.deviceType(typeID) else { return nil }
        var traitIDs: [TraitID] = []
        var converted: [String: GoogleC2CTable.TraitRule] = [:]
        for short in traits {
            if short == "SensorState", chosen != nil {
                // Each named sensor becomes its Matter trait; the google trait stays for the rest.
                let names = c2c.table.sensors.map(\.name).filter { attributes.present.contains("SensorState:\($0)") }
                let allowed = c2c.table.sensors.filter { names.contains($0.name) && definition.allows($0.trait) }
                for rule in allowed where !traitIDs.contains(rule.trait) { traitIDs.append(rule.trait) }
                let declared = attributes.byTrait["SensorState"]?.first { $0.name == "sensorStatesSupported" }.map { value -> Int in
                    if case .list(let entries) = value.value { return entries.count } else { return 0 }
                } ?? 0
                if Set(allowed.map(\.name)).count < declared, let google = c2c.googleTrait(short) { traitIDs.append(google) }
                continue
            }
            if let rule = c2c.table.traits[short]?.first(where: { definition.allows($0.trait) }), !traitIDs.contains(rule.trait) {
                traitIDs.append(rule.trait)
                converted[short] = rule
            } else if let google = c2c.googleTrait(short) {
                traitIDs.append(google)
            }
        }
        for added in c2c.table.alwaysAdded.reversed() where definition.requiredTraits.contains(added) && !traitIDs.contains(added) {
            traitIDs.insert(added, at: 0)
        }
        let source = c2c.source(c2cID: id)
        var device: Device
        do {
            var instance = try c2c.catalog.makeDeviceType(key: shortType.lowercased(), type: typeID, isPrimaryType: true, traits: traitIDs)
            // Every imported trait: fed by the cloud, remote, unknown until a QUERY says otherwise.
            let connectivity = TraitConnectivity(state: .unknown, locality: .remote, reason: .cloudImported, since: now)
            for index in instance.traits.indices {
                instance.traits[index].source = source
                instance.traits[index].connectivity = connectivity
            }
            device = try Device(id: GoogleC2C.deviceID(c2cID: id), name: name, identity: identity, info: info, sources: [source], deviceTypes: [instance])
        } catch {
            problem(nil, "cannot build the device: \(error)", rejects: true)
            return nil
        }
        applyAttributes(attributes.byTrait, converted: converted, to: &device, now: now)
        return ImportedCloudDevice(device: device, origin: origin, path: path)
    }

    // MARK: Fields

    private mutating func requiredString(_ object: JSON, _ key: String) -> String? {
        guard let value = object[key] else {
            problem(nil, "missing required field '\(key)'", rejects: true)
            return nil
        }
        guard let text = value.string, !text.isEmpty else {
            problem(key, "expected a non-empty string, found \(value.kind)", rejects: true)
            return nil
        }
        return text
    }

    private mutating func optionalString(_ object: JSON, _ key: String, at parent: String? = nil) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value.string else {
            problem(parent.map { "\($0).\(key)" } ?? key, "expected a string, found \(value.kind) (dropped)")
            return nil
        }
        return text
    }

    private mutating func optionalBool(_ object: JSON, _ key: String) -> Bool? {
        guard let value = object[key] else { return nil }
        guard let flag = value.bool else {
            problem(key, "expected true or false, found \(value.kind) (dropped)")
            return nil
        }
        return flag
    }

    private mutating func strings(_ object: JSON, _ key: String, at parent: String) -> [String] {
        guard let value = object[key] else { return [] }
        guard value.kind == .array, value.elements.allSatisfy({ $0.string != nil }) else {
            problem("\(parent).\(key)", "expected an array of strings (dropped)")
            return []
        }
        return value.elements.compactMap(\.string)
    }

    /// The declared traits, short names, known ones only, each once.
    private mutating func declaredTraits(_ list: JSON) -> [String] {
        var result: [String] = []
        for (index, element) in list.elements.enumerated() {
            let place = "traits[\(index)]"
            guard let text = element.string else {
                problem(place, "expected a trait name string, found \(element.kind)")
                continue
            }
            let short = GoogleC2C.shortName(text)
            guard text.hasPrefix(GoogleC2C.traitPrefix), c2c.isKnownTrait(short) else {
                let hint = ["ColorTemperature", "ColorSpectrum"].contains(short) ? " (deprecated; Google replaced it with action.devices.traits.ColorSetting)" : ""
                problem(place, "unknown trait '\(text)'\(hint); the trait is not imported")
                continue
            }
            if result.contains(short) {
                problem(place, "trait '\(text)' is declared twice")
                continue
            }
            result.append(short)
        }
        return result
    }

    private mutating func decodeIdentity(_ element: JSON) -> DeviceIdentity {
        var identity = DeviceIdentity()
        identity.uniqueID = optionalString(element, "matterUniqueId")
        identity.vendorID = hex16(element, "matterOriginalVendorId")
        identity.productID = hex16(element, "matterOriginalProductId")
        if let others = element["otherDeviceIds"] {
            guard others.kind == .array else {
                problem("otherDeviceIds", "expected an array of {deviceId, agentId?} (dropped)")
                return identity
            }
            for (index, other) in others.elements.enumerated() {
                guard let deviceID = other["deviceId"]?.string, !deviceID.isEmpty else {
                    problem("otherDeviceIds[\(index)]", "expected {\"deviceId\": string, \"agentId\"?: string} (dropped)")
                    continue
                }
                identity.otherDeviceIDs.append(OtherDeviceID(agentID: other["agentId"]?.string, deviceID: deviceID))
            }
        }
        return identity
    }

    /// `"0xfff1"`: Google sends Matter vendor and product ids as hex strings.
    private mutating func hex16(_ element: JSON, _ key: String) -> UInt16? {
        guard let value = element[key] else { return nil }
        if let text = value.string {
            let digits = text.lowercased().hasPrefix("0x") ? text.dropFirst(2) : Substring(text)
            if (1...4).contains(digits.count), let number = UInt16(digits, radix: 16) { return number }
        }
        problem(key, "expected a 16-bit hex string such as \"0xfff1\", found \(value.value.serialized()) (dropped)")
        return nil
    }
}
