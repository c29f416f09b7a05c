import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

/// One device, part by part in people's words: each trait by its name, each attribute's value and a
/// control that fits its metadata (a switch, a slider in its unit, a choice of words, nothing when
/// read-only), commands as buttons or small forms; the raw view (ids, sources, values as sent,
/// metadata) one click away.
extension WebHTML {
    func devicePage(_ idOrName: String) -> (title: String, body: String)? {
        guard let id = state.deviceID(named: idOrName), let summary = state.deviceSummary(id),
            let traits = traits(id.rawValue)
        else { return nil }
        let name = summary["name"]?.stringValue ?? id.rawValue
        let place = [summary["home"]?.stringValue, summary["room"]?.stringValue].compactMap { $0 }
        let sources = summary["sources"]?.arrayElements?.compactMap(\.stringValue) ?? []
        let placeText = e(place.joined(separator: " › "))
        var body = """
            <p>\(e(id.rawValue)) · \(placeText) · sources: \(e(sources.joined(separator: ", ")))</p>
            <div id="traits" data-device="\(e(id.rawValue))">\(traits)</div>
            """
        let traitIDs = summary["traits"]?.arrayElements?.compactMap(\.stringValue) ?? []
        if traitIDs.contains("google.WebRtcLiveView") { body += liveView(id.rawValue, name: name) }
        return (name, body)
    }

    /// A camera's live view: the page makes a WebRTC offer (no ICE servers), the bridge relays it to the
    /// camera as `startLiveView` (signalling only), the video comes from the camera to the browser.
    private func liveView(_ id: String, name: String) -> String {
        guard canControl else {
            return #"<section id="live"><h2>Live view</h2><p>Watching live needs the control role.</p></section>"#
        }
        return """
            <section id="live" data-live-box><h2>Live view</h2>
            <video id="live-video" data-live-video muted playsinline width="640" height="360" \
            aria-label="\(e(name)), live"></video>
            <p>\(liveButtons(id, name: name))</p></section>
            """
    }

    /// Watch live and Stop for a camera (its page's or its card's video, whichever box holds them).
    func liveButtons(_ id: String, name: String) -> String {
        """
        <button type="button" data-live="\(e(id))" data-path="/api/v1/devices/\(e(Self.path(id)))/commands" \
        aria-label="Watch \(e(name)) live">Watch live</button> \
        <button type="button" data-live-stop="\(e(id))" aria-label="Stop watching \(e(name))">Stop</button>
        """
    }

    /// Each device type's traits, part by part (redrawn whole when the device changes).
    func traits(_ idOrName: String) -> String? {
        guard let id = state.deviceID(named: idOrName), let document = document(id.rawValue),
            case .object(let types)? = document["state"]?["types"]
        else { return nil }
        let device = DeviceView(id: id.rawValue, document: document)
        let name = state.deviceSummary(id)?["name"]?.stringValue ?? id.rawValue
        var html = ""
        for (key, type) in types.members {
            let typeID = type["type"]?.stringValue ?? key
            let connectivity = type["connectivityState"]?.stringValue ?? "unknown"
            html += """
                <section class="type"><h2>\(e(presenter.traitName(typeID))) <small>(\(e(key)))</small>
                <span class="badge \(e(connectivity))">\(e(connectivity))</span></h2>
                """
            guard case .object(let traits)? = type["traits"] else { continue }
            for (traitID, trait) in traits.members {
                html += traitSection(device, name: name, type: key, traitID: traitID, trait: trait)
            }
            html += "</section>"
        }
        return html
    }

    private func traitSection(_ device: DeviceView, name: String, type: String, traitID: String, trait: JSONValue)
        -> String
    {
        let described = device.document["description"]?["types"]?[type]?["traits"]?[traitID]
        let connectivity = trait["connectivityState"]?.stringValue ?? "unknown"
        var html = """
            <div class="trait"><h3>\(e(presenter.traitName(traitID))) <small>\(e(traitID))</small></h3>
            <p><span class="badge \(e(connectivity))">\(e(connectivity))</span>
            <span class="locality">\(e(trait["dataSourceLocality"]?.stringValue ?? "unknown"))</span>
            """
        if let reason = trait["reason"]?.stringValue {
            html += " <span class=\"why\">\(e(reason))"
            html += trait["since"]?.stringValue.map { " (since \(e($0)))" } ?? ""
            html += "</span>"
        }
        html += "</p>"
        let attributes =
            trait["attributes"].flatMap { value -> [(key: String, value: JSONValue)]? in
                guard case .object(let object) = value else { return nil }
                return object.members
            } ?? []
        if !attributes.isEmpty {
            html += "<dl class=\"values\">"
            for (attribute, value) in attributes {
                let place = DeviceView.Place(
                    type: type, trait: traitID, attribute: attribute, value: AttributeValue(jsonValue: value),
                    metadata: device.metadata(type: type, trait: traitID, attribute: attribute))
                html += "<dt>\(e(presenter.name(of: place.key)))</dt><dd><span class=\"value\">"
                html += "\(e(presenter.text(place.value, of: place.key, metadata: place.metadata)))</span>"
                if canControl, let control = fittingControl(place) {
                    html += controlHTML(control, device, place, name: name)
                }
                html += "</dd>"
            }
            html += "</dl>"
        }
        let commands = described?["commands"]?.arrayElements?.compactMap(\.stringValue) ?? []
        if canControl, !commands.isEmpty {
            html += "<div class=\"commands\">"
            for command in commands {
                html += commandControl(device.id, name: name, type: type, traitID: traitID, command: command)
            }
            html += "</div>"
        }
        html += rawView(device.id, type: type, traitID: traitID, trait: trait, described: described)
        return html + "</div>"
    }

    /// The table's control for the attribute, else one its metadata fits when it can be written: a
    /// switch for a boolean, a slider for a bounded number, a choice for words; nil when read-only.
    private func fittingControl(_ place: DeviceView.Place) -> PresentationTable.Control? {
        if let control = presenter.table.controls[place.key] { return control }
        guard let metadata = place.metadata, metadata.isWritable else { return nil }
        if metadata.format == .bool || presenter.words(of: place.key, metadata: metadata) != nil {
            return PresentationTable.Control(kind: .choice, commands: [])
        }
        if metadata.format.isNumeric, metadata.minimum != nil, metadata.maximum != nil {
            return PresentationTable.Control(kind: .slider, commands: [])
        }
        return nil
    }

    /// A command as a button, or, when it has fields, a small form asking each in a field of its kind.
    private func commandControl(_ device: String, name: String, type: String, traitID: String, command: String)
        -> String
    {
        let label = ValuePresenter.label(command)
        let fields =
            TraitID(parsing: traitID).flatMap { state.catalog.trait($0)?.command(named: command)?.fields } ?? []
        guard !fields.isEmpty else {
            return commandButton(
                device, type: type, trait: traitID, command: command, label: "\(label) \(name)",
                text: label) + " "
        }
        var html = """
            <form class="command" data-path="/api/v1/devices/\(Self.path(device))/commands" \
            data-device="\(e(device))" data-type="\(e(type))" data-trait="\(e(traitID))" \
            data-command="\(e(command))"><fieldset><legend>\(e(label))</legend>
            """
        for field in fields {
            let fieldName = ValuePresenter.label(field.name)
            let required = field.isOptional ? "" : " required"
            html += "<label>\(e(fieldName)) "
            if field.metadata.format == .bool {
                html += "<input type=\"checkbox\" name=\"\(e(field.name))\" data-kind=\"bool\"></label> "
            } else if let values = field.metadata.validValues, !values.isEmpty {
                html += "<select name=\"\(e(field.name))\" data-kind=\"json\"\(required)>"
                for valid in values {
                    let word = valid.label ?? valid.value.description
                    html += "<option value=\"\(e(valid.value.jsonValue.serialized()))\">\(e(word))</option>"
                }
                html += "</select></label> "
            } else if field.metadata.format.isNumeric {
                var bounds = ""
                if let low = field.metadata.minimum { bounds += " min=\"\(ValuePresenter.number(low, decimals: 6))\"" }
                if let high = field.metadata.maximum {
                    bounds += " max=\"\(ValuePresenter.number(high, decimals: 6))\""
                }
                let step = field.metadata.format == .float ? "any" : "1"
                html += "<input type=\"number\" name=\"\(e(field.name))\" data-kind=\"number\" step=\"\(step)\""
                html += "\(bounds)\(required) size=\"6\"></label> "
            } else {
                html += "<input name=\"\(e(field.name))\" data-kind=\"text\"\(required) size=\"10\"></label> "
            }
        }
        return html + "<button type=\"submit\">\(e(label))</button></fieldset></form>"
    }

    /// The trait as the bridge has it: id, source, each value as sent with its metadata, and a
    /// field to write any value as sent (JSON or text).
    private func rawView(_ device: String, type: String, traitID: String, trait: JSONValue, described: JSONValue?)
        -> String
    {
        var html = """
            <details class="raw"><summary>Raw: \(e(traitID)) in \(e(type))</summary><dl>
            <dt>Source</dt><dd>\(e(described?["source"]?.stringValue ?? "—"))</dd></dl>
            <table><caption class="hidden">Attributes of \(e(traitID)) as sent</caption>
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
        return html + "</tbody></table></details>"
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

    private func e(_ text: String) -> String { Self.escape(text) }
}
