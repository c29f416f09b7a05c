import TraitBridgeJSON
import TraitBridgeModel

/// Decodes one `mappings/generic/*.json` file; problems go to the reader.
struct GenericDeviceDecoder {
    let tables: SourceTableReader
    let origin: String
    var reader: MappingReader { tables.reader }

    func decode(_ root: JSON) -> [GenericDeviceDefinition] {
        guard let root = reader.object(root, at: .root) else { return [] }
        reader.checkKeys(root, at: .root, allowed: ["devices"])
        var devices: [GenericDeviceDefinition] = []
        for (index, element) in reader.array(root, "devices", at: .root, required: true).enumerated() {
            if let device = decodeDevice(element, at: JSONPath("devices").appending(index)) { devices.append(device) }
        }
        return devices
    }

    private func decodeDevice(_ element: JSON, at path: JSONPath) -> GenericDeviceDefinition? {
        guard let object = reader.object(element, at: path) else { return nil }
        reader.checkKeys(object, at: path, allowed: ["id", "name", "mergeWith", "identity", "locality", "availability", "stalenessSeconds", "deviceTypes"])
        guard let nativeID = reader.string(object, "id", at: path, required: true) else { return nil }
        let name = reader.string(object, "name", at: path) ?? nativeID
        var mergeTarget: DeviceID?
        if let text = reader.string(object, "mergeWith", at: path) {
            mergeTarget = try? DeviceID(text)
            if mergeTarget == nil { reader.problem(path.appending("mergeWith"), ModelError.invalidDeviceID(text).description) }
        }
        var identity = DeviceIdentity()
        if let identityObject = reader.object(object["identity"], at: path.appending("identity")) {
            let identityPath = path.appending("identity")
            reader.checkKeys(identityObject, at: identityPath, allowed: ["uniqueId", "serialNumber", "otherDeviceIds"])
            identity.uniqueID = reader.string(identityObject, "uniqueId", at: identityPath)
            identity.serialNumber = reader.string(identityObject, "serialNumber", at: identityPath)
            identity.otherDeviceIDs = reader.array(identityObject, "otherDeviceIds", at: identityPath).compactMap(\.string).map { OtherDeviceID(deviceID: $0) }
        }
        var locality = TraitLocality.direct
        if let text = reader.string(object, "locality", at: path) {
            if let value = TraitLocality(rawValue: text), value != .unspecified { locality = value } else {
                reader.problem(path.appending("locality"), "locality '\(text)' is not one of direct, localPeer, remote")
            }
        }
        var availability: GenericDeviceDefinition.Availability?
        if let availabilityObject = reader.object(object["availability"], at: path.appending("availability")) {
            let availabilityPath = path.appending("availability")
            reader.checkKeys(availabilityObject, at: availabilityPath, allowed: ["topic", "online", "offline"])
            if let topic = reader.string(availabilityObject, "topic", at: availabilityPath, required: true) {
                availability = .init(topic: topic, online: reader.string(availabilityObject, "online", at: availabilityPath) ?? "online",
                                     offline: reader.string(availabilityObject, "offline", at: availabilityPath) ?? "offline")
            }
        }
        var types: [DeviceTypeInstance] = []
        var joined: Set<String> = []
        var bindings: [GenericDeviceDefinition.Binding] = []
        for (index, typeElement) in reader.array(object, "deviceTypes", at: path, required: true).enumerated() {
            let typePath = path.appending("deviceTypes").appending(index)
            guard let typeObject = reader.object(typeElement, at: typePath) else { continue }
            reader.checkKeys(typeObject, at: typePath, allowed: ["key", "type", "primary", "join", "traits"])
            guard let key = reader.string(typeObject, "key", at: typePath, required: true),
                let type = tables.deviceType(typeObject, "type", at: typePath)
            else { continue }
            // Joining: its traits go into the merge target's type of this key (which has the rest).
            let joins = reader.bool(typeObject, "join", at: typePath) ?? false
            if joins, mergeTarget == nil {
                reader.problem(
                    typePath.appending("join"), "join needs the device's mergeWith (the device whose type it joins)")
            }
            if joins { joined.insert(key) }
            var traitIDs = joins ? [] : tables.catalog.deviceType(type)?.requiredTraits ?? []
            for (traitIndex, traitElement) in reader.array(typeObject, "traits", at: typePath, required: true).enumerated() {
                let traitPath = typePath.appending("traits").appending(traitIndex)
                guard let binding = decodeBinding(traitElement, key: key, at: traitPath) else { continue }
                if !traitIDs.contains(binding.address.traitID) { traitIDs.append(binding.address.traitID) }
                bindings.append(binding)
            }
            do {
                let primary = reader.bool(typeObject, "primary", at: typePath) ?? false
                types.append(
                    try tables.catalog.makeDeviceType(
                        key: key, type: type, isPrimaryType: primary, traits: traitIDs, requiringAll: !joins))
            } catch {
                reader.problem(typePath, error.description)
            }
        }
        let staleness = Duration.seconds(reader.nonNegativeInt(object, "stalenessSeconds", at: path) ?? 600)
        var definition = GenericDeviceDefinition(
            nativeID: nativeID, name: name, mergeTarget: mergeTarget, identity: identity, locality: locality,
            availability: availability, staleness: staleness, deviceTypes: types, bindings: bindings, origin: origin)
        definition.joinedTypes = joined
        return definition
    }

    private func decodeBinding(_ element: JSON, key: String, at path: JSONPath) -> GenericDeviceDefinition.Binding? {
        guard let object = reader.object(element, at: path) else { return nil }
        reader.checkKeys(object, at: path, allowed: ["trait", "attribute", "state", "command"])
        guard let trait = tables.trait(object, at: path), let attribute = tables.attribute(object, of: trait, at: path),
            let metadata = try? tables.catalog.attributeMetadata(trait, attribute),
            let state = reader.object(object["state"], at: path.appending("state"))
        else {
            if object["state"] == nil { reader.problem(path, "missing required key 'state' ({\"topic\": …, \"jsonPath\": …, \"transform\": […]})") }
            return nil
        }
        let statePath = path.appending("state")
        reader.checkKeys(state, at: statePath, allowed: ["topic", "jsonPath", "transform"])
        guard let topic = reader.string(state, "topic", at: statePath, required: true) else { return nil }
        var jsonPath: JSONPath?
        if let text = reader.string(state, "jsonPath", at: statePath) {
            jsonPath = JSONPath(parsing: text)
            if jsonPath == nil { reader.problem(statePath.appending("jsonPath"), "malformed JSON path '\(text)'; write e.g. POWER or StatusSNS.AM2301.Temperature") }
        }
        var commandTopic: String?
        var template: String?
        if let command = reader.object(object["command"], at: path.appending("command")) {
            let commandPath = path.appending("command")
            reader.checkKeys(command, at: commandPath, allowed: ["topic", "payload"])
            commandTopic = reader.string(command, "topic", at: commandPath, required: true)
            template = reader.string(command, "payload", at: commandPath) ?? "{{value}}"
        }
        let binding = GenericDeviceDefinition.Binding(
            address: TraitAddress(deviceTypeKey: key, traitID: trait), attribute: attribute, stateTopic: topic,
            jsonPath: jsonPath, pipeline: tables.pipeline(state, at: statePath), metadata: metadata,
            commandTopic: commandTopic, commandTemplate: template)
        Self.checkTemplate(binding, at: path.appending("command").appending("payload"), reader: reader)
        return binding
    }

    /// A JSON command payload must still be JSON once a value is in it: rendered with a sample
    /// value of the attribute (as a command would send it), and refused, saying which form to
    /// write, when it is not (`{"state":"{{value}}"}` sends `{"state":""OFF""}`).
    static func checkTemplate(
        _ binding: GenericDeviceDefinition.Binding, at path: JSONPath, reader: MappingReader
    ) {
        guard let template = binding.commandTemplate, binding.commandTopic != nil else { return }
        // JSON: the state is, or the template's own text (without the placeholder) starts as JSON does.
        let own = template.split(separator: "{{value}}", omittingEmptySubsequences: false).joined()
            .drop { $0.isWhitespace }
        guard binding.jsonPath != nil || own.first == "{" || own.first == "[" else { return }
        let metadata = binding.metadata
        let sample: AttributeValue =
            switch metadata.format {
            case .bool: .bool(true)
            case .string: .string("text")
            case .float: .double(metadata.minimum ?? 0)
            default: metadata.validValues?.first?.value ?? .int(Int64(exactly: (metadata.minimum ?? 0).rounded()) ?? 0)
            }
        let integral = metadata.format.integerRange != nil
        guard let source = binding.pipeline.inverse(sample, integral: integral) else { return }
        let rendered = binding.commandPayload(source)
        guard (try? JSONDocument.parse(Array(rendered.utf8))) == nil else { return }
        reader.problem(
            path,
            "with a sample value the payload is not JSON: \(rendered); {{value}} is already JSON text here "
                + "(a string comes with its quotes): write {\"state\": {{value}}}, not {\"state\": \"{{value}}\"}")
    }
}
