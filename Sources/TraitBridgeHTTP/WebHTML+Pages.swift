import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// One device trait by trait, and the home above the devices.
extension WebHTML {
    // MARK: One device

    func devicePage(_ idOrName: String) -> (title: String, body: String)? {
        guard let id = state.deviceID(named: idOrName), let summary = state.deviceSummary(id),
            let traits = traits(id.rawValue)
        else { return nil }
        let name = summary["name"]?.stringValue ?? id.rawValue
        let place = [summary["home"]?.stringValue, summary["room"]?.stringValue].compactMap { $0 }
        let sources = summary["sources"]?.arrayElements?.compactMap(\.stringValue) ?? []
        let placeText = e(place.joined(separator: " › "))
        let body = """
            <p>\(e(id.rawValue)) · \(placeText) · sources: \(e(sources.joined(separator: ", ")))</p>
            <div id="traits" data-device="\(e(id.rawValue))">\(traits)</div>
            """
        return (name, body)
    }

    /// Each device type's traits: source, connectivity, locality, reason, since; each attribute's
    /// value and metadata, with a form to set it and a button per command (control or admin).
    func traits(_ idOrName: String) -> String? {
        guard let id = state.deviceID(named: idOrName), let document = document(id.rawValue),
            case .object(let types)? = document["state"]?["types"]
        else { return nil }
        let description = document["description"]
        var html = ""
        for (key, type) in types.members {
            let typeName = type["type"]?.stringValue ?? key
            html += """
                <section class="type"><h2>\(e(typeName)) <small>(\(e(key)))</small>
                <span class="badge \(e(type["connectivityState"]?.stringValue ?? ""))">\
                \(e(type["connectivityState"]?.stringValue ?? "unknown"))</span></h2>
                """
            guard case .object(let traits)? = type["traits"] else { continue }
            for (traitID, trait) in traits.members {
                let described = description?["types"]?[key]?["traits"]?[traitID]
                html += traitSection(id.rawValue, type: key, traitID: traitID, trait: trait, described: described)
            }
            html += "</section>"
        }
        return html
    }

    private func traitSection(_ device: String, type: String, traitID: String, trait: JSONValue, described: JSONValue?)
        -> String
    {
        let connectivity = trait["connectivityState"]?.stringValue ?? "unknown"
        var html = """
            <div class="trait"><h3>\(e(traitID))</h3><dl>
            <dt>Source</dt><dd>\(e(described?["source"]?.stringValue ?? "—"))</dd>
            <dt>Connectivity</dt><dd><span class="badge \(e(connectivity))">\(e(connectivity))</span></dd>
            <dt>Locality</dt><dd>\(e(trait["dataSourceLocality"]?.stringValue ?? "unknown"))</dd>
            <dt>Reason</dt><dd>\(e(trait["reason"]?.stringValue ?? "—"))</dd>
            <dt>Since</dt><dd>\(e(trait["since"]?.stringValue ?? "—"))</dd></dl>
            <table><caption class="hidden">Attributes of \(e(traitID))</caption>
            <thead><tr><th scope="col">Attribute</th><th scope="col">Value</th><th scope="col">Metadata</th>
            \(canControl ? "<th scope=\"col\">Set</th>" : "")</tr></thead><tbody>
            """
        if case .object(let attributes)? = trait["attributes"] {
            for (name, value) in attributes.members {
                let metadata = described?["attributes"]?[name]
                html += "<tr><th scope=\"row\">\(e(name))</th><td>\(e(value.serialized()))</td>"
                html += "<td>\(e(Self.metadataText(metadata)))</td>"
                if canControl {
                    html += """
                        <td><form data-path="/api/v1/devices/\(Self.path(device))/commands" \
                        data-device="\(e(device))" data-type="\(e(type))" data-trait="\(e(traitID))" \
                        data-attribute="\(e(name))"><input name="value" aria-label="New value of \(e(name))" \
                        value="\(e(value.serialized()))" size="8"> <button type="submit">Set</button></form></td>
                        """
                }
                html += "</tr>"
            }
        }
        html += "</tbody></table>"
        let commands = described?["commands"]?.arrayElements?.compactMap(\.stringValue) ?? []
        if canControl, !commands.isEmpty {
            html += "<p class=\"commands\">"
            for command in commands {
                html += commandButton(
                    device, type: type, trait: traitID, command: command, label: "\(traitID) \(command)", text: command)
            }
            html += "</p>"
        }
        return html + "</div>"
    }

    /// `format bool · unit % · 0–254 · step 1`.
    static func metadataText(_ metadata: JSONValue?) -> String {
        guard case .object(let fields)? = metadata else { return "" }
        var parts: [String] = []
        for (key, value) in fields.members {
            switch value {
            case .string(let text): parts.append("\(key) \(text)")
            case .int, .double, .bool: parts.append("\(key) \(value.serialized())")
            case .array(let items): parts.append("\(key): \(items.count) values")
            default: continue
            }
        }
        return parts.joined(separator: " · ")
    }

    // MARK: The home

    func homePage() -> String {
        var html = "<section><h2>Zones</h2><ul>"
        for zone in state.layoutList(.zones)["zones"]?.arrayElements ?? [] {
            let rooms = zone["rooms"]?.arrayElements?.compactMap(\.stringValue) ?? []
            html +=
                "<li><strong>\(e(zone["name"]?.stringValue ?? "?"))</strong> (\(e(zone["home"]?.stringValue ?? "")))"
            html += ": \(e(rooms.isEmpty ? "no rooms" : rooms.joined(separator: ", ")))</li>"
        }
        html += "</ul></section><section><h2>Groups</h2>"
        for group in state.layoutList(.groups)["groups"]?.arrayElements ?? [] { html += groupSection(group) }
        html += "</section><section><h2>Scenes</h2><ul>"
        for scene in state.layoutList(.scenes)["scenes"]?.arrayElements ?? [] {
            let id = scene["id"]?.stringValue ?? ""
            let name = scene["name"]?.stringValue ?? id
            html += "<li><strong>\(e(name))</strong>: \(scene["actions"]?.arrayElements?.count ?? 0) actions, "
            html += "last run \(e(Self.runText(scene["lastRun"])))"
            if canControl { html += " " + runButton("/api/v1/scenes/\(Self.path(id))/run", "Run \(name)") }
            html += "</li>"
        }
        html += "</ul></section><section><h2>Automations</h2><ul>"
        for automation in state.layoutList(.automations)["automations"]?.arrayElements ?? [] {
            let id = automation["id"]?.stringValue ?? ""
            let name = automation["name"]?.stringValue ?? id
            let enabled = automation["enabled"] == .bool(true) ? "enabled" : "disabled"
            html += "<li><strong>\(e(name))</strong> (\(enabled)): "
            html += e((automation["triggers"]?.arrayElements?.compactMap(\.stringValue) ?? []).joined(separator: "; "))
            html += "; next \(e(automation["nextFire"]?.stringValue ?? "on events"))"
            html += "; last run \(e(Self.runText(automation["lastRun"])))"
            if canControl { html += " " + runButton("/api/v1/automations/\(Self.path(id))/run", "Run \(name)") }
            html += "</li>"
        }
        html += "</ul></section><section><h2>Cloud links</h2><ul>"
        let links = state.layoutList(.cloudLinks)["links"]?.arrayElements ?? []
        if links.isEmpty { html += "<li>none</li>" }
        for link in links {
            html += "<li><strong>\(e(link["name"]?.stringValue ?? "?"))</strong>: "
            html += "\(e(link["state"]?.stringValue ?? "?")), \(link["devices"]?.serialized() ?? "0") devices"
            if let error = link["error"]?.stringValue { html += " — \(e(error))" }
            html += "</li>"
        }
        return html + "</ul></section>"
    }

    private func groupSection(_ group: JSONValue) -> String {
        let id = group["id"]?.stringValue ?? ""
        let name = group["name"]?.stringValue ?? id
        let connectivity = group["connectivityState"]?.stringValue ?? "unknown"
        var html = """
            <article class="group"><h3>\(e(name)) <span class="badge \(e(connectivity))">\(e(connectivity))</span></h3>
            <ul>
            """
        for member in group["members"]?.arrayElements ?? [] {
            let device = member["device"]?.stringValue ?? ""
            let state = member["connectivityState"]?.stringValue ?? "unknown"
            html += "<li><a href=\"/ui/devices/\(Self.path(device))\">\(e(member["name"]?.stringValue ?? device))</a>"
            html += " <span class=\"badge \(e(state))\">\(e(state))</span></li>"
        }
        html += "</ul>"
        if canControl {
            for command in ["on", "off"] {
                let body: JSONValue = ["trait": "matter.OnOff", "command": .string(command)]
                html += """
                    <button type="button" data-path="/api/v1/groups/\(Self.path(id))/commands" \
                    data-body="\(e(body.serialized()))" aria-label="\(e(name)): all \(command)">All \(command)</button>
                    """
            }
        }
        return html + "</article>"
    }

    private func runButton(_ path: String, _ label: String) -> String {
        "<button type=\"button\" data-path=\"\(e(path))\" aria-label=\"\(e(label))\">Run</button>"
    }

    static func runText(_ run: JSONValue?) -> String {
        guard let run else { return "never" }
        return "\(run["status"]?.stringValue ?? "?") at \(run["at"]?.stringValue ?? "?")"
    }

    private func e(_ text: String) -> String { Self.escape(text) }
}
