import FoundationEssentials
import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// Home Assistant MQTT discovery as a source (consumed, not produced): config messages in
/// (`<prefix>/<component>/[<node>/]<object>/config` and device configs
/// `<prefix>/device/<id>/config` with `cmps`), entities out; the entities' state topics in,
/// attribute updates out; unified writes in, command-topic messages out.
///
/// Entities of one HA device (same first `device.identifiers`) become one TraitBridge device with
/// one device type per entity. It never sees the broker: tested from recorded payloads. Rules:
/// `mappings/sources/homeassistant.json`.
public struct HADiscoverySource: Sendable {
    public static let family = "homeassistant"
    public let table: HomeAssistantTable
    public let catalog: Catalog
    public let instance: String
    /// The discovery prefix (`homeassistant`; may have several levels).
    public let prefix: String

    public init(
        table: HomeAssistantTable, catalog: Catalog, instance: String = "default", prefix: String = "homeassistant"
    ) {
        self.table = table
        self.catalog = catalog
        self.instance = instance
        self.prefix = prefix
    }

    /// What a config message says.
    public enum ConfigMessage: Sendable {
        /// Entities (one, or the components of a device config), each mapped or refused alone;
        /// `removedKeys`: components a device config no longer lists (or lists with only `p`).
        case entities([Result<HADiscoveryEntity, SourceProblem>], keys: [String], removedKeys: [String])
        /// An empty payload: the entities of this config topic are gone.
        case removal
        /// `{"migrate_discovery": true}`: the entity moves to a device config; keep it.
        case migration
    }

    /// The config topic's key (`switch/bla`, `device/ea33…`), `nil` when the topic is not a
    /// discovery config (HA's own `homeassistant/status`, `…/state` topics under the prefix),
    /// or a problem when it looks like one but breaks the rules.
    public func configKey(_ topic: String) -> Result<(component: String, key: String), SourceProblem>? {
        guard topic.hasPrefix(prefix + "/"), topic.hasSuffix("/config") else { return nil }
        let levels = topic.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false).map(
            String.init)
        guard levels.count == 3 || levels.count == 4 else { return nil }
        let component = levels[0]
        let ids = levels.dropFirst().dropLast()
        for id in ids where id.isEmpty || !id.unicodeScalars.allSatisfy(Self.isIDCharacter) {
            return .failure(
                SourceProblem(
                    location: topic,
                    message: "'\(id)' is not a valid node or object id: use only a–z, A–Z, 0–9, _ and -"))
        }
        if component == "device" && ids.count != 1 {
            return .failure(
                SourceProblem(location: topic, message: "a device config topic is <prefix>/device/<id>/config"))
        }
        return .success((component, ([component] + ids).joined(separator: "/")))
    }

    /// Reads a config message of `configKey`.
    public func configMessage(component: String, key: String, topic: String, payload: [UInt8]) -> Result<
        ConfigMessage, SourceProblem
    > {
        if payload.isEmpty { return .success(.removal) }
        let root: JSON
        do {
            root = try JSONDocument.parse(payload).root
        } catch {
            return .failure(SourceProblem(location: topic, message: "the config is not JSON: \(error)"))
        }
        guard root.kind == .object else {
            return .failure(
                SourceProblem(location: topic, message: "a discovery config is a JSON object, found \(root.kind)"))
        }
        let config = HADiscoveryConfig(root, table: table)
        if config.bool("migrate_discovery") == true, config.values.count == 1 { return .success(.migration) }
        guard component == "device" else {
            return .success(
                .entities(
                    [entity(component: component, key: key, topic: topic, config: config)], keys: [key], removedKeys: []
                ))
        }
        guard config["device"] != nil, case .object? = config["components"] else {
            return .failure(
                SourceProblem(location: topic, message: "a device config needs 'device' (dev) and 'components' (cmps)"))
        }
        var results: [Result<HADiscoveryEntity, SourceProblem>] = []
        var keys: [String] = []
        var removed: [String] = []
        for (componentKey, componentConfig) in config.components(table: table) {
            let entityKey = key + "/" + componentKey
            guard let platform = componentConfig.string("platform") else {
                results.append(
                    .failure(
                        SourceProblem(
                            location: "\(topic): cmps.\(componentKey)",
                            message: "missing 'p' (platform): the component of this entry")))
                continue
            }
            // A component given with only its platform is being removed (HA's documented way).
            if case .object(let own)? = config["components"]?[componentKey], own.count == 1 {
                removed.append(entityKey)
                continue
            }
            keys.append(entityKey)
            results.append(entity(component: platform, key: entityKey, topic: topic, config: componentConfig))
        }
        return .success(.entities(results, keys: keys, removedKeys: removed))
    }

    /// One entity from its expanded config; the error names the option and what is allowed.
    func entity(component: String, key: String, topic: String, config: HADiscoveryConfig) -> Result<
        HADiscoveryEntity, SourceProblem
    > {
        let location = key.hasPrefix("device/") ? "\(topic): cmps.\(key.split(separator: "/").last ?? "")" : topic
        func fail(_ message: String) -> Result<HADiscoveryEntity, SourceProblem> {
            .failure(SourceProblem(location: location, message: message))
        }
        let availability: [HAAvailability]
        var availabilityNotes: [String] = []
        switch availabilityList(config, notes: &availabilityNotes) {
        case .failure(let problem): return fail("\(problem.location): \(problem.message)")
        case .success(let list): availability = list
        }
        let modeText = config.string("availability_mode") ?? "latest"
        guard let mode = HAAvailabilityMode(rawValue: modeText) else {
            return fail("availability_mode '\(modeText)' is not one of all, any, latest")
        }
        // Home Assistant refuses these configs too: a `device` that is not an object must not
        // make the entity a device of its own (which would take it away from its device).
        for shaped in ["device", "origin"] {
            if let value = config[shaped], case .object = value {
            } else if config[shaped] != nil {
                return fail("\(shaped) must be an object, found \(config[shaped]?.serialized().prefix(40) ?? "")")
            }
        }
        if case .object(let device)? = config["device"] {
            func isText(_ value: JSONValue) -> Bool {
                if case .string(let text) = value { !text.isEmpty } else { false }
            }
            let identifiers: Bool? =
                switch device["identifiers"] {
                case nil: nil
                case .string(let text)?: !text.isEmpty
                case .array(let list)?: !list.isEmpty && list.allSatisfy(isText)
                default: false
                }
            let connections: Bool? =
                switch device["connections"] {
                case nil: nil
                case .array(let list)?:
                    !list.isEmpty
                        && list.allSatisfy {
                            if case .array(let pair) = $0 { pair.count == 2 && pair.allSatisfy(isText) } else { false }
                        }
                default: false
                }
            guard identifiers != false, connections != false, identifiers == true || connections == true else {
                return fail(
                    "device needs identifiers (text or a list of text) or connections (a list of [type, value] pairs), as Home Assistant requires"
                )
            }
        }
        let deviceRef = self.deviceRef(config, key: key)
        let uniqueID = config.string("unique_id")
        let source = SourceReference(family: Self.family, instance: instance, nativeID: uniqueID ?? key)
        let objectKey = String(key.split(separator: "/").last ?? Substring(key))
        var draft = EntityDraft(key: objectKey, source: source)
        draft.notes = availabilityNotes
        let built: Result<Void, SourceProblem>
        switch component {
        case "switch": built = buildSwitch(config, into: &draft)
        case "light": built = buildLight(config, into: &draft)
        case "sensor": built = buildSensor(config, into: &draft)
        case "binary_sensor": built = buildBinarySensor(config, into: &draft)
        case "cover": built = buildCover(config, into: &draft)
        case "lock": built = buildLock(config, into: &draft)
        case "fan": built = buildFan(config, into: &draft)
        case "climate": built = buildClimate(config, into: &draft)
        default:
            return fail(
                "component '\(component)' is not supported; TraitBridge reads light, switch, sensor, binary_sensor, cover, lock, fan and climate"
            )
        }
        if case .failure(let problem) = built { return fail(problem.message) }
        guard let type = draft.type else {
            return fail("nothing to read: the entity has no state or command topic TraitBridge understands")
        }
        do {
            var instance = try catalog.makeDeviceType(
                key: objectKey, type: type, isPrimaryType: false, traits: traits(type, draft.traits))
            for index in instance.traits.indices { instance.traits[index].source = source }
            let name: String? = if case .null? = config["name"] { nil } else { config.string("name") }
            return .success(
                HADiscoveryEntity(
                    key: key, configTopic: topic, component: component, uniqueID: uniqueID, name: name,
                    deviceRef: deviceRef,
                    origin: config["origin"]?["name"].flatMap(HADiscoveryConfig.word),
                    deviceType: instance, channels: draft.channels, commands: draft.commands,
                    availability: availability, availabilityMode: mode,
                    notes: draft.notes.map { SourceProblem(location: location, message: $0) },
                    modelRanges: draft.modelRanges,
                    modelValidValues: draft.modelValidValues))
        } catch {
            return fail("\(error)")
        }
    }

    /// The required traits of `type` (Identify…) followed by `own`.
    func traits(_ type: DeviceTypeID, _ own: [TraitID]) -> [TraitID] {
        let required = catalog.deviceType(type)?.requiredTraits ?? []
        return required.filter { !own.contains($0) } + own
    }

    /// `availability_topic` (with `payload_available`…) or the `availability` list, not both. A
    /// topic whose template TraitBridge cannot read is left out with a note: the entity's
    /// connectivity then follows its messages instead.
    private func availabilityList(_ config: HADiscoveryConfig, notes: inout [String]) -> Result<
        [HAAvailability], SourceProblem
    > {
        let defaultAvailable = config.string("payload_available") ?? "online"
        let defaultNotAvailable = config.string("payload_not_available") ?? "offline"
        var entries: [(index: Int?, config: HADiscoveryConfig, templateKey: String)] = []
        if config.string("availability_topic") != nil {
            guard config["availability"] == nil else {
                return .failure(
                    SourceProblem(
                        location: "availability",
                        message: "give either availability_topic or availability (a list), not both"))
            }
            entries = [(nil, config, "availability_template")]
        } else if let value = config["availability"] {
            let list: [JSONValue]
            switch value {
            case .array(let elements): list = elements
            case .object: list = [value]
            default:
                return .failure(
                    SourceProblem(
                        location: "availability",
                        message:
                            "expected a list of {\"topic\": …, \"payload_available\": …, \"payload_not_available\": …}, found \(value.serialized())"
                    ))
            }
            for (index, entry) in list.enumerated() {
                guard case .object = entry else {
                    return .failure(
                        SourceProblem(
                            location: "availability[\(index)]",
                            message: "expected an object with a 'topic', found \(entry.serialized())"))
                }
                entries.append((index, HADiscoveryConfig(entry.objectMembers, table: table), "value_template"))
            }
        }
        var result: [HAAvailability] = []
        for (index, entry, templateKey) in entries {
            let place = index.map { "availability[\($0)]" } ?? "availability_topic"
            guard let topic = entry.string(index == nil ? "availability_topic" : "topic"), !topic.isEmpty else {
                return .failure(SourceProblem(location: place, message: "expected an object with a 'topic'"))
            }
            switch HAValueTemplate.parse(entry.string(templateKey)) {
            case .failure(let problem):
                notes.append(
                    "\(place) \(templateKey) \(problem.message); availability on \(topic) is not read, connectivity follows the entity's messages"
                )
            case .success(let template):
                result.append(
                    HAAvailability(
                        topic: topic, template: template,
                        available: index == nil ? defaultAvailable : entry.string("payload_available") ?? "online",
                        notAvailable: index == nil
                            ? defaultNotAvailable : entry.string("payload_not_available") ?? "offline"))
            }
        }
        return .success(result)
    }

    /// The device an entity belongs to: its first identifier, or the entity itself.
    private func deviceRef(_ config: HADiscoveryConfig, key: String) -> HADiscoveryDeviceRef {
        let device = HADiscoveryConfig(config["device"]?.objectMembers ?? [], table: HomeAssistantTable())
        let identifiers = device.strings("identifiers")
        var others: [OtherDeviceID] = identifiers.map { OtherDeviceID(agentID: Self.family, deviceID: $0) }
        // zigbee2mqtt names its devices zigbee2mqtt_<ieee>: the IEEE address is what other sources know.
        for identifier in identifiers where identifier.hasPrefix("zigbee2mqtt_") {
            others.append(
                OtherDeviceID(agentID: "zigbee2mqtt", deviceID: String(identifier.dropFirst("zigbee2mqtt_".count))))
        }
        if case .array(let connections)? = device["connections"] {
            for connection in connections {
                guard case .array(let pair) = connection, pair.count == 2, case .string(let kind) = pair[0],
                    case .string(let value) = pair[1]
                else { continue }
                // A MAC is known without separators, upper case (as Tasmota and Shelly give it).
                let id = kind == "mac" ? value.filter(\.isHexDigit).uppercased() : value
                others.append(OtherDeviceID(agentID: kind, deviceID: id))
            }
        }
        let nativeID = identifiers.first ?? config.string("unique_id") ?? key
        return HADiscoveryDeviceRef(
            nativeID: nativeID, deviceID: DeviceID.derived(source: "ha", nativeID: nativeID),
            name: device.string("name"),
            identity: DeviceIdentity(serialNumber: device.string("serial_number"), otherDeviceIDs: others),
            info: DeviceInfo(
                manufacturer: device.string("manufacturer"), model: device.string("model"),
                hardwareVersion: device.string("hw_version"), softwareVersion: device.string("sw_version")),
            suggestedArea: device.string("suggested_area"))
    }

    private static func isIDCharacter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
            || scalar == "-"
    }
}

/// An entity while its component builds it.
struct EntityDraft {
    let key: String
    let source: SourceReference
    var type: DeviceTypeID?
    var traits: [TraitID] = []
    var channels: [HAChannel] = []
    var commands: [HACommand] = []
    /// What the config says of an attribute's range, in the model's unit (a light's `min_mireds`…).
    var modelRanges: [String: ClosedRange<Double>] = [:]
    /// The values the config allows an attribute (a climate's `modes`), in the model's terms.
    var modelValidValues: [String: [AttributeValue]] = [:]
    var notes: [String] = []

    init(key: String, source: SourceReference) {
        self.key = key
        self.source = source
    }

    mutating func add(_ trait: TraitID) {
        if !traits.contains(trait) { traits.append(trait) }
    }

    /// Success when the component found a topic to read or write; else the problem saying what it needs.
    func requireTopics(at location: String, _ message: String) -> Result<Void, SourceProblem> {
        channels.isEmpty && commands.isEmpty
            ? .failure(SourceProblem(location: location, message: message)) : .success(())
    }
}
