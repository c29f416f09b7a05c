import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

extension HomeAssistantDiscovery {
    /// The device's discovery config: its Home Assistant device (under the bridge's, in its room)
    /// and one component per entity of the table that applies to one of its device types. Nil when
    /// none does (there is nothing to publish; a config published before is to be cleared).
    /// `offers`: what each trait feeds and accepts, as the device's description says.
    public func deviceConfig(
        of device: Device, roomName: String?, offers: (TraitAddress) -> TraitOffer
    ) -> [UInt8]? {
        deviceConfigCounting(of: device, roomName: roomName, offers: offers)?.bytes
    }

    /// ``deviceConfig(of:roomName:offers:)`` and how many entities it gives.
    public func deviceConfigCounting(
        of device: Device, roomName: String?, offers: (TraitAddress) -> TraitOffer
    ) -> (bytes: [UInt8], entities: Int)? {
        let objectID = objectID(device.id)
        var components = JSONObject()
        var names: Set<String> = []
        for type in device.deviceTypes where Self.isTypeKey(type.key) {
            var taken: Set<Int> = []
            // Each trait's offer asked for once (a handful of traits: a list, not a dictionary).
            var asked: [(trait: TraitID, offer: TraitOffer)] = []
            func offer(_ trait: TraitID) -> TraitOffer {
                if let known = asked.first(where: { $0.trait == trait }) { return known.offer }
                let made = offers(TraitAddress(deviceTypeKey: type.key, traitID: trait))
                asked.append((trait, made))
                return made
            }
            for entity in table.entities {
                if !entity.deviceTypes.isEmpty, !entity.deviceTypes.contains(type.typeID) { continue }
                guard let first = entity.parts.first, !first.claims.contains(where: taken.contains),
                    type.trait(first.trait) != nil
                else { continue }
                let firstOffer = offer(first.trait)
                guard first.attributes.allSatisfy({ firstOffer.attributes[$0] != nil }) else { continue }
                // An entity that lists the device's values (an event's types) needs the device to have some.
                if first.listsValues, first.attributes.first.flatMap({ firstOffer.attributes[$0]?.validValues }) == nil
                {
                    continue
                }
                let key = type.key + "_" + entity.key
                guard components[key] == nil else { continue }  // a second row for the same entity
                // The table's name ("Temperature"), the device type's key before it when the device has it
                // already; no name: the device's own (its primary type) or the type's key.
                let name: String?
                switch (entity.name, type.isPrimaryType) {
                case (let given?, _): name = names.contains(given) ? type.key + " " + given : given
                case (nil, true): name = nil
                case (nil, false): name = type.key
                }
                if let name { names.insert(name) }
                components[key] = .object(
                    component(
                        entity, name: name, of: device, type: type, uniqueID: objectID + "_" + key,
                        offers: offer, taken: &taken))
            }
        }
        guard !components.isEmpty else { return nil }
        var device = deviceBlock(device, objectID: objectID, roomName: roomName)
        device["via_device"] = .string(bridgeObjectID)
        let root: JSONObject = [
            "device": .object(device), "origin": origin, "qos": 1, "components": .object(components),
        ]
        return (JSONValue.object(root).serializedBytes(), components.count)
    }

    /// One entity: its platform, name and id, availability and attributes from its first trait,
    /// then each part the device has (reads always, writes when the device can).
    private func component(
        _ entity: HomeAssistantExportTable.Entity, name: String?, of device: Device, type: DeviceTypeInstance,
        uniqueID: String, offers: (TraitID) -> TraitOffer, taken: inout Set<Int>
    ) -> JSONObject {
        var options: JSONObject = ["platform": .string(entity.platform), "unique_id": .string(uniqueID)]
        options["name"] = name.map { .string($0) } ?? .null  // null: the device's own name
        let path = Self.path(type.key, entity.parts[0].trait)
        let state = stateTopic(device.id)
        options["availability"] = [
            ["topic": .string(availabilityTopic)],
            [
                "topic": .string(state),
                "value_template": .string("{{ 'online' if \(path).connectivityState == 'online' else 'offline' }}"),
            ],
        ]
        options["availability_mode"] = "all"
        options["json_attributes_topic"] = .string(state)
        options["json_attributes_template"] = .string(
            "{{ {'connectivity': \(path).connectivityState, 'locality': \(path).dataSourceLocality, "
                + "'reason': \(path).reason | default(none), 'reasonCode': \(path).reasonCode | default(none), "
                + "'since': \(path).since | default(none)} | tojson }}")
        for (key, value) in entity.options.members { options[key] = value }
        let commands = commandTopic(device.id)
        let events = eventTopic(device.id)
        for part in entity.parts where type.trait(part.trait) != nil {
            let offer = offers(part.trait)
            guard part.attributes.allSatisfy({ offer.attributes[$0] != nil }) else { continue }
            taken.formUnion(part.claims)
            let words = [
                ("$path", Self.path(type.key, part.trait)), ("$typeKey", type.key),
                ("$traitID", part.trait.description), ("$stateTopic", state),
                ("$commandTopic", commands), ("$eventTopic", events),
            ]
            let metadata = part.attributes.first.flatMap { offer.attributes[$0] }
            var whole: [(String, JSONValue)] = []
            if let minimum = metadata?.minimum { whole.append(("$minimum", Self.number(minimum * part.scale))) }
            if let maximum = metadata?.maximum { whole.append(("$maximum", Self.number(maximum * part.scale))) }
            if let values = metadata?.validValues {
                whole.append(("$values", .array(values.map(Self.word))))
            }
            func put(_ given: JSONObject) {
                for (key, value) in given.members where options[key] == nil {
                    if let value = Self.substitute(value, words: words, whole: whole) { options[key] = value }
                }
            }
            put(part.read)
            if canWrite(part, offer: offer) { put(part.write) }
        }
        return options
    }

    /// Whether the device accepts the part's command, or can write every attribute it writes (its
    /// metadata says writable, or a command it accepts sets it).
    func canWrite(_ part: HomeAssistantExportTable.Part, offer: TraitOffer) -> Bool {
        let rules = catalog.commandRulesByTrait[part.trait] ?? []
        func accepted(_ command: String) -> Bool {
            offer.sourceSaysWrites
                ? offer.commands.contains(command)
                : rules.contains { $0.command == command && $0.unsupportedReason == nil }
        }
        if let command = part.command { return accepted(command) }
        guard !part.writes.isEmpty else { return false }
        return part.writes.allSatisfy { name in
            let metadata = offer.attributes[name] ?? (try? catalog.attributeMetadata(part.trait, name))
            let writable = offer.sourceSaysWrites ? offer.attributes[name]?.isWritable : metadata?.isWritable
            return writable == true
                || rules.contains { accepted($0.command) && $0.sets.contains { $0.attribute == name } }
        }
    }

    /// The device as Home Assistant's device registry keeps it.
    func deviceBlock(_ device: Device, objectID: String, roomName: String?) -> JSONObject {
        var block: JSONObject = ["identifiers": [.string(objectID)], "name": .string(device.name)]
        block.setIfPresent("manufacturer", device.info.manufacturer.map { .string($0) })
        block.setIfPresent("model", device.info.model.map { .string($0) })
        block.setIfPresent("sw_version", device.info.softwareVersion.map { .string($0) })
        block.setIfPresent("hw_version", device.info.hardwareVersion.map { .string($0) })
        block.setIfPresent("serial_number", device.identity.serialNumber.map { .string($0) })
        block.setIfPresent("suggested_area", roomName.map { .string($0) })
        return block
    }

    /// A trait in the unified state, for templates.
    static func path(_ typeKey: String, _ trait: TraitID) -> String {
        "value_json.types['\(typeKey)'].traits['\(trait.description)']"
    }

    /// Device type keys that go into templates and ids as they are (letters, digits, `_`, `-`, `.`).
    static func isTypeKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 64
            && key.utf8.allSatisfy { HomeAssistantExportTable.isKeyByte($0) || $0 == 0x2D || $0 == 0x2E }
    }

    /// An option with the table's words replaced. A whole-value word (`$minimum`, `$maximum`,
    /// `$values`) becomes its value from `whole`, and the option is left out (nil) when the device has none.
    static func substitute(_ value: JSONValue, words: [(String, String)], whole: [(String, JSONValue)]) -> JSONValue? {
        switch value {
        case .string(let text) where HomeAssistantExportTable.wholeValueWords.contains(text):
            return whole.first { $0.0 == text }?.1
        case .string(let text):
            return .string(replaceWords(in: text, words))
        case .array(let elements):
            return .array(elements.compactMap { substitute($0, words: words, whole: whole) })
        case .object(let object):
            var result = JSONObject()
            for (key, member) in object.members {
                if let replaced = substitute(member, words: words, whole: whole) {
                    result.append(key, replaced)
                }
            }
            return .object(result)
        default: return value
        }
    }

    /// `text` with each `$word` of `words` replaced, by bytes (a template is long; `$` is rare in it).
    static func replaceWords(in text: String, _ words: [(String, String)]) -> String {
        var utf8 = text.utf8[...]
        guard utf8.contains(0x24) else { return text }
        var result: [UInt8] = []
        result.reserveCapacity(utf8.count + 128)
        while let dollar = utf8.firstIndex(of: 0x24) {
            result += utf8[..<dollar]
            let rest = utf8[dollar...]
            if let (word, replacement) = words.first(where: { rest.starts(with: $0.0.utf8) }) {
                result += replacement.utf8
                utf8 = rest.dropFirst(word.utf8.count)
            } else {
                result.append(0x24)
                utf8 = rest.dropFirst()
            }
        }
        result += utf8
        return String(decoding: result, as: UTF8.self)
    }

    /// A valid value as Home Assistant names it: its label, else the value (a string as it is).
    static func word(_ valid: ValidValue) -> JSONValue {
        if let label = valid.label { return .string(label) }
        if case .string(let text) = valid.value { return .string(text) }
        return .string(valid.value.description)
    }

    /// A bound as JSON: an integer when it is one (mireds), else the number rounded to 0.01.
    static func number(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded(), let integer = Int64(exactly: rounded) { return .int(integer) }
        return .double(rounded)
    }
}
