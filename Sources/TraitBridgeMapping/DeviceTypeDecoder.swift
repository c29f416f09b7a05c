import TraitBridgeJSON
import TraitBridgeModel

/// Decodes one device type entry of a catalog file; problems go to the reader.
struct DeviceTypeDecoder {
    let reader: MappingReader

    private static let keys: Set<String> = ["id", "name", "matterId", "homeApisId", "utility", "required", "optional", "spec"]

    func decode(_ element: JSON, at path: JSONPath) -> DeviceTypeDefinition? {
        guard let object = reader.object(element, at: path) else { return nil }
        reader.checkKeys(object, at: path, allowed: Self.keys)
        guard let idText = reader.string(object, "id", at: path, required: true) else { return nil }
        guard let id = DeviceTypeID(parsing: idText) else {
            reader.problem(path.appending("id"), "malformed device type id '\(idText)'; write matter.Name, google.Name or vendor.<org>.Name")
            return nil
        }
        let name = reader.string(object, "name", at: path, required: true)
        let matterID = reader.hexID(object, "matterId", at: path)
        if id.namespace == .matter && matterID == nil && object["matterId"] == nil {
            reader.problem(path, "Matter device type \(id) needs its 'matterId'")
        }
        let homeAPIsID = reader.string(object, "homeApisId", at: path)
        if let homeAPIsID {
            TraitDecoder(reader: reader).checkHomeAPIsID(
                homeAPIsID, kind: "types", namespace: id.namespace, numericID: matterID, at: path.appending("homeApisId"))
        }
        let required = traitList(object, "required", at: path, isRequired: true)
        let optional = traitList(object, "optional", at: path, isRequired: false)
        for (index, trait) in optional.enumerated() where required.contains(trait) {
            reader.problem(path.appending("optional").appending(index), "trait '\(trait)' is listed as both required and optional")
        }
        return DeviceTypeDefinition(
            id: id, displayName: name ?? id.name, matterID: matterID, homeAPIsID: homeAPIsID,
            isUtilityType: reader.bool(object, "utility", at: path) ?? false,
            requiredTraits: required, optionalTraits: optional.filter { !required.contains($0) },
            specReference: reader.string(object, "spec", at: path))
    }

    private func traitList(_ object: JSON, _ key: String, at path: JSONPath, isRequired: Bool) -> [TraitID] {
        var traits: [TraitID] = []
        for (index, element) in reader.array(object, key, at: path, required: isRequired).enumerated() {
            let elementPath = path.appending(key).appending(index)
            guard let text = element.string else {
                reader.problem(elementPath, "expected a trait id string, found \(element.kind)")
                continue
            }
            guard let trait = TraitID(parsing: text) else {
                reader.problem(elementPath, "malformed trait id '\(text)'; write matter.Name, google.Name or vendor.<org>.Name")
                continue
            }
            if traits.contains(trait) {
                reader.problem(elementPath, "trait '\(trait)' is listed twice")
                continue
            }
            traits.append(trait)
        }
        return traits
    }
}
