import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// The home above the devices: zones, groups, scenes, automations, cloud links.
extension WebHTML {
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
