import TraitBridgeJSON
import TraitBridgePresentation

/// The differences between two state payloads of one device, as `watch` prints them: the
/// Home APIs' stream idea — snapshots compared by id, only what changed is shown.
struct StateChange: Equatable {
    enum Kind: String { case added, removed, changed }

    var kind: Kind
    var id: String
    var name: String
    /// `connectivity online → offline: <reason>` or `light/matter.OnOff.onOff false → true`: the
    /// values as sent (`--json`'s `changes`).
    var details: [String]
    /// The same in people's words: `Power off → on`, `Temperature 22.2 °C → 22.3 °C` (the line, and
    /// `--json`'s `display`).
    var shown: [String]

    /// What changed from `old` to `new` (`nil` payloads: the device did not exist / was removed).
    /// `description` (the device's description payload) gives the metadata values are shown with.
    static func between(id: String, old: JSON?, new: JSON?, description: JSON? = nil) -> StateChange? {
        switch (old, new) {
        case (nil, nil): return nil
        case (nil, let new?):
            let connectivity = "\(new["connectivityState"]?.string ?? "?")/\(new["dataSourceLocality"]?.string ?? "?")"
            return StateChange(
                kind: .added, id: id, name: new["name"]?.string ?? id, details: [connectivity], shown: [connectivity])
        case (let old?, nil):
            return StateChange(kind: .removed, id: id, name: old["name"]?.string ?? id, details: [], shown: [])
        case (let old?, let new?):
            var details: [String] = []
            var shown: [String] = []
            if let was = old["name"]?.string, let now = new["name"]?.string, was != now {
                details.append("name \"\(was)\" → \"\(now)\"")
                shown.append(details[details.count - 1])
            }
            let before = old["connectivityState"]?.string ?? "?"
            let after = new["connectivityState"]?.string ?? "?"
            if before != after {
                details.append("connectivity \(before) → \(after)" + (firstReason(new).map { ": \($0)" } ?? ""))
                shown.append(details[details.count - 1])
            }
            let types = new["types"]?.members ?? []
            // A trait in two device types (a dual relay's channels, a cloud twin) is said with its type's key.
            let traitCounts = Dictionary(
                types.flatMap { $0.value["traits"]?.members.map { ($0.key, 1) } ?? [] }, uniquingKeysWith: +)
            for (key, type) in types {
                for (traitID, trait) in type["traits"]?.members ?? [] {
                    let oldTrait = old[
                        path: JSONPath(components: [.key("types"), .key(key), .key("traits"), .key(traitID)])]
                    for (attribute, value) in trait["attributes"]?.members ?? [] {
                        let previous = oldTrait?["attributes"]?[attribute]?.value
                        guard previous != value.value else { continue }
                        details.append(
                            "\(key)/\(traitID).\(attribute) \(previous?.serialized() ?? "–") → "
                                + value.value.serialized()
                        )
                        let metadata = PeoplesWords.metadata(
                            description, type: key, trait: traitID, attribute: attribute)
                        let words = { (value: JSONValue) in
                            PeoplesWords.text(value, trait: traitID, attribute: attribute, metadata: metadata)
                        }
                        let name = PeoplesWords.presenter.name(
                            of: ValuePresenter.key(trait: traitID, attribute: attribute))
                        shown.append(
                            ((traitCounts[traitID] ?? 0) > 1 ? "\(key) " : "")
                                + "\(name) \(previous.map(words) ?? "–") → \(words(value.value))")
                    }
                }
            }
            guard !details.isEmpty else { return nil }
            return StateChange(
                kind: .changed, id: id, name: new["name"]?.string ?? id, details: details, shown: shown)
        }
    }

    private static func firstReason(_ state: JSON) -> String? {
        for (_, type) in state["types"]?.members ?? [] {
            for (_, trait) in type["traits"]?.members ?? [] where trait["connectivityState"]?.string != "online" {
                return trait["reason"]?.string
            }
        }
        return nil
    }

    var line: String {
        "\(kind.rawValue.padding(7))  \(name) (\(id))" + (shown.isEmpty ? "" : "  " + shown.joined(separator: "; "))
    }

    var json: JSONValue {
        [
            "event": .string(kind.rawValue), "id": .string(id), "name": .string(name),
            "changes": .array(details.map { .string($0) }), "display": .array(shown.map { .string($0) }),
        ]
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
