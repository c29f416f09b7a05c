import TraitBridgeJSON
import TraitBridgeModel

/// Decodes one trait entry of a catalog file; problems go to the reader.
struct TraitDecoder {
    let reader: MappingReader

    private static let traitKeys: Set<String> = ["id", "name", "clusterId", "homeApisId", "spec", "features", "attributes", "commands"]
    private static let attributeKeys = MetadataDecoder.keys.union(["name", "id", "required", "conformance"])
    private static let commandKeys: Set<String> = ["name", "id", "required", "conformance", "fields"]
    private static let fieldKeys = MetadataDecoder.keys.union(["name", "optional"])
    private static let featureKeys: Set<String> = ["bit", "code", "name"]

    func decodeTrait(_ element: JSON, at path: JSONPath) -> TraitDefinition? {
        guard let object = reader.object(element, at: path) else { return nil }
        reader.checkKeys(object, at: path, allowed: Self.traitKeys)
        let idText = reader.string(object, "id", at: path, required: true)
        let name = reader.string(object, "name", at: path, required: true)
        let clusterID = reader.hexID(object, "clusterId", at: path)
        let homeAPIsID = reader.string(object, "homeApisId", at: path)
        guard let idText else { return nil }
        guard let id = TraitID(parsing: idText) else {
            reader.problem(path.appending("id"), "malformed trait id '\(idText)'; write matter.Name, google.Name or vendor.<org>.Name")
            return nil
        }
        if id.namespace == .matter && clusterID == nil && object["clusterId"] == nil {
            reader.problem(path, "Matter trait \(id) needs its 'clusterId'")
        }
        if let homeAPIsID {
            checkHomeAPIsID(homeAPIsID, kind: "clusters", namespace: id.namespace, numericID: clusterID, at: path.appending("homeApisId"))
        }
        var attributes: [AttributeDefinition] = []
        for (index, element) in reader.array(object, "attributes", at: path).enumerated() {
            let attributePath = path.appending("attributes").appending(index)
            guard let attribute = decodeAttribute(element, at: attributePath, namespace: id.namespace) else { continue }
            if attributes.contains(where: { $0.name == attribute.name }) {
                reader.problem(attributePath.appending("name"), "attribute '\(attribute.name)' appears twice in \(id)")
                continue
            }
            attributes.append(attribute)
        }
        var commands: [CommandDefinition] = []
        for (index, element) in reader.array(object, "commands", at: path).enumerated() {
            let commandPath = path.appending("commands").appending(index)
            guard let command = decodeCommand(element, at: commandPath, namespace: id.namespace) else { continue }
            if commands.contains(where: { $0.name == command.name }) {
                reader.problem(commandPath.appending("name"), "command '\(command.name)' appears twice in \(id)")
                continue
            }
            commands.append(command)
        }
        var features: [FeatureDefinition] = []
        for (index, element) in reader.array(object, "features", at: path).enumerated() {
            let featurePath = path.appending("features").appending(index)
            guard let feature = reader.object(element, at: featurePath) else { continue }
            reader.checkKeys(feature, at: featurePath, allowed: Self.featureKeys)
            let bit = reader.nonNegativeInt(feature, "bit", at: featurePath)
            let code = reader.string(feature, "code", at: featurePath, required: true)
            let featureName = reader.string(feature, "name", at: featurePath, required: true)
            if let bit, let code, let featureName {
                features.append(FeatureDefinition(bit: bit, code: code, name: featureName))
            }
        }
        return TraitDefinition(
            id: id, displayName: name ?? id.name, clusterID: clusterID, homeAPIsID: homeAPIsID,
            attributes: attributes, commands: commands, features: features,
            specReference: reader.string(object, "spec", at: path))
    }

    private func decodeAttribute(_ element: JSON, at path: JSONPath, namespace: Namespace) -> AttributeDefinition? {
        guard let object = reader.object(element, at: path) else { return nil }
        reader.checkKeys(object, at: path, allowed: Self.attributeKeys)
        guard let name = memberName(object, at: path, namespace: namespace) else { return nil }
        let id = reader.hexID(object, "id", at: path)
        let isRequired = reader.bool(object, "required", at: path) ?? false
        let conformance = conformance(object, at: path)
        guard let metadata = MetadataDecoder(reader: reader).decode(object, at: path, allowsWritable: true) else { return nil }
        return AttributeDefinition(name: name, id: id, metadata: metadata, isRequired: isRequired, conformance: conformance)
    }

    private func decodeCommand(_ element: JSON, at path: JSONPath, namespace: Namespace) -> CommandDefinition? {
        guard let object = reader.object(element, at: path) else { return nil }
        reader.checkKeys(object, at: path, allowed: Self.commandKeys)
        guard let name = memberName(object, at: path, namespace: namespace) else { return nil }
        var fields: [CommandField] = []
        for (index, element) in reader.array(object, "fields", at: path).enumerated() {
            let fieldPath = path.appending("fields").appending(index)
            guard let field = reader.object(element, at: fieldPath) else { continue }
            reader.checkKeys(field, at: fieldPath, allowed: Self.fieldKeys)
            guard let fieldName = memberName(field, at: fieldPath, namespace: namespace),
                let metadata = MetadataDecoder(reader: reader).decode(field, at: fieldPath, allowsWritable: false)
            else { continue }
            if fields.contains(where: { $0.name == fieldName }) {
                reader.problem(fieldPath.appending("name"), "field '\(fieldName)' appears twice in command \(name)")
                continue
            }
            fields.append(CommandField(name: fieldName, metadata: metadata, isOptional: reader.bool(field, "optional", at: fieldPath) ?? false))
        }
        return CommandDefinition(
            name: name, id: reader.hexID(object, "id", at: path), fields: fields,
            isRequired: reader.bool(object, "required", at: path) ?? false,
            conformance: conformance(object, at: path))
    }

    /// `conformance` is a string, or null where the specification gives none.
    private func conformance(_ object: JSON, at path: JSONPath) -> String? {
        guard let value = object["conformance"], !value.isNull else { return nil }
        return reader.string(object, "conformance", at: path)
    }

    /// An identifier the MQTT contract and the CLI use as a key: lowerCamelCase for Matter traits
    /// (as the Home APIs spell them); Google and vendor traits keep their owner's spelling, so a
    /// Cloud-to-cloud command stays `OpenClose` and a param `StreamToChromecast`.
    private func memberName(_ object: JSON, at path: JSONPath, namespace: Namespace) -> String? {
        guard let name = reader.string(object, "name", at: path, required: true) else { return nil }
        let scalars = name.unicodeScalars
        let firstIsAllowed = { (first: Unicode.Scalar) in ("a"..."z").contains(first) || (namespace != .matter && ("A"..."Z").contains(first)) }
        guard let first = scalars.first, firstIsAllowed(first),
            scalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) })
        else {
            let rule = namespace == .matter ? "lowerCamelCase: a–z first" : "an identifier: a letter first"
            reader.problem(path.appending("name"), "name '\(name)' must be \(rule), then letters and digits")
            return nil
        }
        return name
    }

    /// `home.matter.<vendor hex4>.<kind>.<id hex4>`; for Matter ids, the one derived from the numeric id.
    func checkHomeAPIsID(_ text: String, kind: String, namespace: Namespace, numericID: UInt32?, at path: JSONPath) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let isHex4 = { (part: Substring) in part.count == 4 && part.allSatisfy { $0.isHexDigit && !$0.isUppercase } }
        guard parts.count == 5, parts[0] == "home", parts[1] == "matter", isHex4(parts[2]), parts[3] == kind, isHex4(parts[4]) else {
            reader.problem(path, "malformed Home APIs id '\(text)'; expected home.matter.<vendor hex4>.\(kind).<id hex4> in lower case")
            return
        }
        guard let numericID else { return }
        let vendor = numericID >> 16
        let expected = "home.matter.\(hex4(vendor)).\(kind).\(hex4(numericID & 0xFFFF))"
        if namespace != .google && text != expected {
            reader.problem(path, "Home APIs id '\(text)' does not match id \(CatalogLoader.hex(numericID)); expected '\(expected)'")
        }
    }

    private func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
