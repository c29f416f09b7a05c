import TraitBridgeJSON

/// The differences between two state payloads of one device, as `watch` prints them: the
/// Home APIs' stream idea — snapshots compared by id, only what changed is shown.
struct StateChange: Equatable {
    enum Kind: String { case added, removed, changed }

    var kind: Kind
    var id: String
    var name: String
    /// `connectivity online → offline: <reason>` or `light/matter.OnOff.onOff false → true`.
    var details: [String]

    /// What changed from `old` to `new` (`nil` payloads: the device did not exist / was removed).
    static func between(id: String, old: JSON?, new: JSON?) -> StateChange? {
        switch (old, new) {
        case (nil, nil): return nil
        case (nil, let new?):
            let connectivity = "\(new["connectivityState"]?.string ?? "?")/\(new["dataSourceLocality"]?.string ?? "?")"
            return StateChange(kind: .added, id: id, name: new["name"]?.string ?? id, details: [connectivity])
        case (let old?, nil):
            return StateChange(kind: .removed, id: id, name: old["name"]?.string ?? id, details: [])
        case (let old?, let new?):
            var details: [String] = []
            if let was = old["name"]?.string, let now = new["name"]?.string, was != now {
                details.append("name \"\(was)\" → \"\(now)\"")
            }
            let before = old["connectivityState"]?.string ?? "?"
            let after = new["connectivityState"]?.string ?? "?"
            if before != after {
                details.append("connectivity \(before) → \(after)" + (firstReason(new).map { ": \($0)" } ?? ""))
            }
            for (key, type) in new["types"]?.members ?? [] {
                for (traitID, trait) in type["traits"]?.members ?? [] {
                    let oldTrait = old[path: JSONPath(components: [.key("types"), .key(key), .key("traits"), .key(traitID)])]
                    for (attribute, value) in trait["attributes"]?.members ?? [] {
                        let previous = oldTrait?["attributes"]?[attribute]?.value
                        if previous != value.value {
                            details.append("\(key)/\(traitID).\(attribute) \(previous?.serialized() ?? "–") → \(value.value.serialized())")
                        }
                    }
                }
            }
            guard !details.isEmpty else { return nil }
            return StateChange(kind: .changed, id: id, name: new["name"]?.string ?? id, details: details)
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
        "\(kind.rawValue.padding(7))  \(name) (\(id))" + (details.isEmpty ? "" : "  " + details.joined(separator: "; "))
    }

    var json: JSONValue {
        ["event": .string(kind.rawValue), "id": .string(id), "name": .string(name), "changes": .array(details.map { .string($0) })]
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
