public import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// A whole device in people's words, from its state and description payloads (the MQTT contract's
/// and the API's): the line `status` prints and the API's `display` fields.
extension ValuePresenter {
    /// The values a person looks for first on this device (its card's), named where a number alone
    /// would not say what it is (a percentage, a unit already in the line): "on, brightness 78 %,
    /// 4000 K", "18.7 °C, heating to 19.5 °C, heat", "locked, battery 81 %".
    public func headline(state: JSONValue, description: JSONValue?) -> String {
        let types = Self.members(state["types"])
        let typeIDs = types.compactMap { $0.value["type"]?.stringValue }
        var shown: [String] = []
        var units: Set<String> = []
        for key in cardKeys(deviceTypes: typeIDs) {
            guard let dot = key.lastIndex(of: ".") else { continue }
            let trait = String(key[..<dot])
            let attribute = String(key[key.index(after: dot)...])
            for (typeKey, type) in types {
                guard let value = type["traits"]?[trait]?["attributes"]?[attribute] else { continue }
                let metadata = Self.metadata(description, type: typeKey, trait: trait, attribute: attribute)
                let model = AttributeValue(jsonValue: value)
                var words = text(model, of: key, metadata: metadata)
                if model.numericValue != nil, let symbol = unit(of: key, metadata: metadata)?.symbol {
                    if symbol == "%" || units.contains(symbol) { words = name(of: key).lowercased() + " " + words }
                    units.insert(symbol)
                }
                shown.append(words)
                break
            }
        }
        return shown.joined(separator: ", ")
    }

    /// Every attribute of the device in words, by `type/trait.attribute` (as command results name
    /// them): `{"light/matter.LevelControl.currentLevel": "79 %"}`.
    public func display(state: JSONValue, description: JSONValue?) -> JSONObject {
        var object = JSONObject()
        for (typeKey, type) in Self.members(state["types"]) {
            for (trait, body) in Self.members(type["traits"]) {
                for (attribute, value) in Self.members(body["attributes"]) {
                    let metadata = Self.metadata(description, type: typeKey, trait: trait, attribute: attribute)
                    let key = Self.key(trait: trait, attribute: attribute)
                    object.append(
                        "\(typeKey)/\(key)",
                        .string(text(AttributeValue(jsonValue: value), of: key, metadata: metadata)))
                }
            }
        }
        return object
    }

    /// The metadata a description payload gives of an attribute.
    public static func metadata(_ description: JSONValue?, type: String, trait: String, attribute: String)
        -> AttributeMetadata?
    {
        description?["types"]?[type]?["traits"]?[trait]?["attributes"]?[attribute]
            .flatMap(AttributeMetadata.init(described:))
    }

    private static func members(_ value: JSONValue?) -> [(key: String, value: JSONValue)] {
        guard case .object(let object)? = value else { return [] }
        return object.members
    }
}
