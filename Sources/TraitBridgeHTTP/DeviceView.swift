import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

/// A device's document (`{"state": …, "description": …}`) read as the web UI needs it: where an
/// attribute is, its value and metadata, and which parts are unreachable and why.
struct DeviceView {
    let id: String
    let document: JSONValue

    /// Where one attribute of the device was found.
    struct Place {
        var type: String
        var trait: String
        var attribute: String
        var value: AttributeValue
        var metadata: AttributeMetadata?

        var key: String { ValuePresenter.key(trait: trait, attribute: attribute) }
    }

    private var types: [(key: String, value: JSONValue)] {
        guard case .object(let types)? = document["state"]?["types"] else { return [] }
        return types.members
    }

    /// The device's device type ids, in its order, each once.
    var typeIDs: [String] {
        var ids: [String] = []
        for (_, type) in types {
            if let id = type["type"]?.stringValue, !ids.contains(id) { ids.append(id) }
        }
        return ids
    }

    /// `trait.attribute` on the device: in the first device type where its trait is online, else
    /// the first that has it (a bulb's local path offline: its cloud twin's value).
    func find(_ key: String) -> Place? {
        guard let dot = key.lastIndex(of: ".") else { return nil }
        let trait = String(key[..<dot])
        let attribute = String(key[key.index(after: dot)...])
        var found: Place?
        for (typeKey, type) in types {
            guard let held = type["traits"]?[trait], let value = held["attributes"]?[attribute] else { continue }
            let place = Place(
                type: typeKey, trait: trait, attribute: attribute, value: AttributeValue(jsonValue: value),
                metadata: metadata(type: typeKey, trait: trait, attribute: attribute))
            if held["connectivityState"]?.stringValue == "online" { return place }
            if found == nil { found = place }
        }
        return found
    }

    /// Another attribute of the same trait instance (a fan's setting beside its speed).
    func value(_ place: Place, attribute: String) -> AttributeValue {
        document["state"]?["types"]?[place.type]?["traits"]?[place.trait]?["attributes"]?[attribute]
            .map(AttributeValue.init(jsonValue:)) ?? .null
    }

    /// The description's metadata of an attribute.
    func metadata(type: String, trait: String, attribute: String) -> AttributeMetadata? {
        ValuePresenter.metadata(document["description"], type: type, trait: trait, attribute: attribute)
    }

    /// The parts that are not online, grouped by reason: ("light: On/off, Brightness", reason).
    func unreachable(_ presenter: ValuePresenter) -> [(parts: String, reason: String?)] {
        var groups: [(parts: [String], reason: String?)] = []
        for (typeKey, type) in types {
            guard case .object(let traits)? = type["traits"] else { continue }
            var names: [String: [String]] = [:]
            var order: [String?] = []
            for (traitID, trait) in traits.members where trait["connectivityState"]?.stringValue != "online" {
                let reason = trait["reason"]?.stringValue
                let known = order.contains { $0 == reason }
                if !known { order.append(reason) }
                names[reason ?? "", default: []].append(presenter.traitName(traitID))
            }
            for reason in order {
                let parts = "\(typeKey) (\((names[reason ?? ""] ?? []).joined(separator: ", ")))"
                if let index = groups.firstIndex(where: { $0.reason == reason }) {
                    groups[index].parts.append(parts)
                } else {
                    groups.append(([parts], reason))
                }
            }
        }
        return groups.map { ($0.parts.joined(separator: "; "), $0.reason) }
    }
}
