public import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// Shelly Gen1 and Gen2+ as a source: topics classified, values mapped through
/// `mappings/sources/shelly.json`, unified writes turned into Gen1 `…/command` messages or Gen2
/// JSON-RPC calls on `<prefix>/rpc`.
///
/// It never sees the broker: tested from recorded payloads (`../shared/corpus/shelly`).
public struct ShellySource: Sendable {
    public static let family = "shelly"
    /// The fixed Gen1 topic root.
    public static let gen1Root = "shellies"
    public let table: ShellyTable
    public let catalog: Catalog
    public let instance: String
    /// `src` of our JSON-RPC calls: the device answers on `<src>/rpc`.
    public let rpcSource: String

    public init(table: ShellyTable, catalog: Catalog, instance: String = "default", rpcSource: String = "traitbridge/shelly") {
        self.table = table
        self.catalog = catalog
        self.instance = instance
        self.rpcSource = rpcSource
    }

    /// What a topic is, found from its last levels (a Gen1 id or a Gen2 prefix can have any depth).
    public enum Message: Sendable, Hashable {
        /// `shellies/announce` (the base is in the payload) or `shellies/<id>/announce`.
        case announce(base: String?)
        /// Gen1 `shellies/<id>/info`: the full status, for the MAC and firmware.
        case info(base: String)
        /// `<base>/online`: `true` or `false`, both generations.
        case online(base: String)
        /// Gen1 value topic; `rules` index `table.gen1` (several rules read one JSON payload).
        case gen1(base: String, rules: [Int], channel: Int)
        /// Gen2 `<prefix>/events/rpc`: NotifyStatus, NotifyFullStatus, NotifyEvent.
        case gen2Event(base: String)
        /// Gen2 `<prefix>/status/<component>` (`switch:0`, `sys`).
        case gen2Status(base: String, component: String)

        /// The device's topic base, when the topic names it.
        public var base: String? {
            switch self {
            case .announce(let base): base
            case .info(let base), .online(let base), .gen2Event(let base): base
            case .gen1(let base, _, _), .gen2Status(let base, _): base
            }
        }
    }

    /// Classifies a topic, or `nil` when it is none of Shelly's.
    public func classify(_ topic: String) -> Message? {
        if topic == "\(Self.gen1Root)/announce" { return .announce(base: nil) }
        if topic.hasSuffix("/events/rpc") { return .gen2Event(base: String(topic.dropLast(11))) }
        if topic.hasSuffix("/online") { return .online(base: String(topic.dropLast(7))) }
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count >= 2 else { return nil }
        if levels.count >= 3, levels[levels.count - 2] == "status" {
            return .gen2Status(base: levels.dropLast(2).joined(separator: "/"), component: String(levels[levels.count - 1]))
        }
        guard levels.count >= 3, levels[0] == Self.gen1Root else { return nil }
        if levels.last == "announce" { return .announce(base: levels.dropLast().joined(separator: "/")) }
        if levels.last == "info" { return .info(base: levels.dropLast().joined(separator: "/")) }
        var matched: [Int] = []
        var channel = 0
        var depth = 0
        for (index, rule) in table.gen1.enumerated() {
            let pattern = rule.topicPattern
            guard levels.count > pattern.count + 1, matched.isEmpty || pattern.count == depth else { continue }
            var ruleChannel = 0
            var matches = true
            for (offset, part) in pattern.enumerated() {
                let level = levels[levels.count - pattern.count + offset]
                if part == "<n>" {
                    guard let number = Int(level), number >= 0 else { matches = false; break }
                    ruleChannel = number
                } else if level != part {
                    matches = false
                    break
                }
            }
            guard matches else { continue }
            matched.append(index)
            channel = ruleChannel
            depth = pattern.count
        }
        guard !matched.isEmpty else { return nil }
        return .gen1(base: levels.dropLast(depth).joined(separator: "/"), rules: matched, channel: channel)
    }

    /// Availability words: `true`/`false` (Gen1 and Gen2 alike).
    public func availability(_ payload: [UInt8]) -> Bool? {
        switch String(decoding: payload, as: UTF8.self) {
        case "true": true
        case "false": false
        default: nil
        }
    }

    /// A device not yet known: named after its id until something better is known.
    public func newDevice(_ generation: ShellyDevice.Generation, base: String, nativeID: String) throws(SourceProblem) -> ShellyDevice {
        let source = SourceReference(family: Self.family, instance: instance, nativeID: nativeID)
        do {
            let device = try Device(
                id: DeviceID.derived(source: Self.family, nativeID: nativeID), name: nativeID.split(separator: "/").last.map(String.init) ?? nativeID,
                identity: DeviceIdentity(otherDeviceIDs: [OtherDeviceID(agentID: Self.family, deviceID: nativeID)]),
                info: DeviceInfo(manufacturer: "Shelly"), sources: [source])
            var shelly = ShellyDevice(generation: generation, base: base, nativeID: nativeID, device: device)
            if generation == .gen2 { noteMAC(Self.macSuffix(of: nativeID), on: &shelly) }
            return shelly
        } catch {
            throw SourceProblem(location: base, message: "\(error)")
        }
    }

    /// Gen1 announce and info (JSON objects): the MAC (identity), model and firmware they carry.
    public func applyAnnounce(_ payload: JSON, to shelly: inout ShellyDevice) {
        noteMAC(payload["mac"]?.string, on: &shelly)
        if let model = payload["model"]?.string ?? payload["type"]?.string { shelly.device.info.model = model }
        if let firmware = payload["fw_ver"]?.string ?? payload["fw"]?.string { shelly.device.info.softwareVersion = firmware }
    }

    func noteMAC(_ mac: String?, on shelly: inout ShellyDevice) {
        guard let mac, mac.count == 12, mac.allSatisfy(\.isHexDigit) else { return }
        shelly.device.identity.uniqueID = mac.uppercased()
    }

    /// The 12 hex digits ending a Gen2 device id (`shellyplus1pm-4417939a5610`), when there are.
    static func macSuffix(of id: String) -> String? {
        guard let last = id.split(separator: "-").last, last.count == 12, last.allSatisfy(\.isHexDigit) else { return nil }
        return String(last)
    }

    /// The values of a Gen1 value topic (plain text such as `on` or `91`, or a JSON object for
    /// `status` and `light/<n>/status`); the device types they need are added to the device.
    public func gen1Updates(rules: [Int], channel: Int, payload: [UInt8], device shelly: inout ShellyDevice) -> (updates: [AttributeUpdate], problems: [SourceProblem]) {
        var updates: [AttributeUpdate] = []
        var problems: [SourceProblem] = []
        var root: JSON?
        for index in rules {
            let rule = table.gen1[index]
            let raw: AttributeValue
            if rule.field.isEmpty {
                let text = String(decoding: payload, as: UTF8.self).trimmingSpaces()
                if let number = Double(text) {
                    guard let value = FiniteNumber.attributeValue(number) else {
                        problems.append(SourceProblem(location: "$", message: "'\(text)' is not a finite number: ignored"))
                        continue
                    }
                    raw = text.contains(".") ? .double(number) : value
                } else {
                    raw = .string(text)
                }
            } else {
                if root == nil {
                    guard let parsed = try? JSONDocument.parse(payload).root, parsed.kind == .object else {
                        return ([], [SourceProblem(location: "$", message: "not a JSON object (\(payload.count) bytes): ignored")])
                    }
                    root = parsed
                }
                guard let value = Self.value(at: rule.field, in: root), !value.isNull else { continue }
                raw = AttributeValue(json: value)
            }
            apply(raw, rule: rule, rank: index, channel: channel, location: rule.field.isEmpty ? "$" : rule.field.joined(separator: "."), device: &shelly, updates: &updates, problems: &problems)
        }
        return (updates, problems)
    }

    static func value(at path: [String], in root: JSON?) -> JSON? {
        var current = root
        for key in path { current = current?[key] }
        return current
    }

    /// Converts one value and makes sure its device type and trait exist on the device.
    func apply(_ raw: AttributeValue, rule: ShellyTable.Rule, rank: Int, channel: Int, location: String, device shelly: inout ShellyDevice, updates: inout [AttributeUpdate], problems: inout [SourceProblem]) {
        guard let value = rule.pipeline.forward(raw, fittingTo: rule.metadata) else {
            problems.append(SourceProblem(location: location, message: "cannot convert \(raw) to \(rule.trait).\(rule.attribute)"))
            return
        }
        let key = rule.key(channel: channel)
        ensure(key, type: rule.deviceType, trait: rule.trait, rank: rank, on: &shelly)
        updates.append(AttributeUpdate(address: TraitAddress(deviceTypeKey: key, traitID: rule.trait), attribute: rule.attribute, value: value))
    }

    func ensure(_ key: String, type: DeviceTypeID, trait: TraitID, rank: Int, on shelly: inout ShellyDevice) {
        let source = SourceReference(family: Self.family, instance: instance, nativeID: shelly.nativeID)
        if shelly.device.deviceType(key: key) == nil {
            let required = catalog.deviceType(type)?.requiredTraits ?? []
            guard var instance = try? catalog.makeDeviceType(key: key, type: type, isPrimaryType: false, traits: required.contains(trait) ? required : required + [trait]) else { return }
            for index in instance.traits.indices { instance.traits[index].source = source }
            try? shelly.device.addDeviceType(instance)
            shelly.typeRanks[key] = rank
            if let primary = shelly.typeRanks.min(by: { ($0.value, $0.key) < ($1.value, $1.key) })?.key {
                shelly.device.setPrimaryType(key: primary)
            }
        } else if shelly.device.trait(at: TraitAddress(deviceTypeKey: key, traitID: trait)) == nil {
            shelly.device.addTrait(TraitInstance(traitID: trait, source: source), toDeviceType: key)
        }
    }
}
