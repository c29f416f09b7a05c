import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

/// A device's card: the values a person looks for on that kind of device, in their words, with the
/// controls that fit them — all chosen by `mappings/presentation/values.json` (cards, controls),
/// not by code per device type.
extension WebHTML {
    /// One device's card: name, connectivity and locality, which part is unreachable and why, its
    /// card's values and their controls (control or admin).
    func card(_ idOrName: String) -> String? {
        guard let id = state.deviceID(named: idOrName), let summary = state.deviceSummary(id),
            let document = document(id.rawValue)
        else { return nil }
        let device = DeviceView(id: id.rawValue, document: document)
        let connectivity = summary["connectivityState"]?.stringValue ?? "unknown"
        let locality = summary["dataSourceLocality"]?.stringValue ?? "unknown"
        let name = summary["name"]?.stringValue ?? id.rawValue
        var html = """
            <article class="card" id="card-\(e(id.rawValue))" data-device="\(e(id.rawValue))">
            <h3><a href="/ui/devices/\(Self.path(id.rawValue))">\(e(name))</a></h3>
            <p><span class="badge \(e(connectivity))">\(e(connectivity))</span>
            <span class="locality">\(e(locality))</span></p>
            """
        if connectivity != "online" {
            for (parts, reason) in device.unreachable(presenter) {
                let what = connectivity == "partiallyOnline" ? "Unreachable: \(parts)" : "Unreachable"
                html += "<p class=\"reason\">\(e(what)) — \(e(reason ?? "no reason given"))</p>"
            }
        }
        var rows = ""
        for key in presenter.cardKeys(deviceTypes: device.typeIDs) {
            guard let place = device.find(key) else { continue }
            rows += valueRow(device, place, name: name)
        }
        if !rows.isEmpty { html += "<dl class=\"values\">\(rows)</dl>" }
        let traits = summary["traits"]?.arrayElements ?? []
        if canControl, traits.contains(.string("google.WebRtcLiveView")) {
            // A camera's card plays its live view in place (hidden until asked).
            html += """
                <div class="live" data-live-box><video data-live-video muted playsinline hidden width="320" \
                height="180" aria-label="\(e(name)), live"></video><p>\(liveButtons(id.rawValue, name: name))</p></div>
                """
        }
        return html + "</article>"
    }

    /// One value of a card: its name, its value in words and the table's control for it.
    private func valueRow(_ device: DeviceView, _ place: DeviceView.Place, name: String) -> String {
        let shown = presenter.text(place.value, of: place.key, metadata: place.metadata)
        var html = """
            <dt>\(e(presenter.name(of: place.key)))</dt>\
            <dd><span class="value" data-key="\(e(place.key))">\(e(shown))</span>
            """
        if canControl, let control = presenter.table.controls[place.key] {
            html += controlHTML(control, device, place, name: name)
        }
        return html + "</dd>"
    }

    /// The control the table gives an attribute, sending what the person chose as the API takes it
    /// (a value in their unit or a word; the bridge reads it back and checks it).
    func controlHTML(
        _ control: PresentationTable.Control, _ device: DeviceView, _ place: DeviceView.Place, name: String
    )
        -> String
    {
        let written = control.writes ?? place.attribute
        let writtenKey = ValuePresenter.key(trait: place.trait, attribute: written)
        let metadata =
            control.writes.map { device.metadata(type: place.type, trait: place.trait, attribute: $0) }
            ?? place.metadata
        let label = "\(presenter.name(of: writtenKey)) of \(name)"
        var html = ""
        switch control.kind {
        case .toggle?:
            if let on = control.onCommand, let off = control.offCommand {
                let isOn = place.value == .bool(true)
                html += commandButton(
                    device.id, type: place.type, trait: place.trait, command: isOn ? off : on,
                    label: isOn ? "Turn off \(name)" : "Turn on \(name)", text: isOn ? "Turn off" : "Turn on")
            }
        case .slider?:
            if let metadata, let range = sliderRange(writtenKey, metadata) {
                let current = written == place.attribute ? place.value : device.value(place, attribute: written)
                let now = personNumber(current, of: writtenKey, metadata: metadata) ?? range.low
                html += """
                     <input type="range" min="\(range.low)" max="\(range.high)" step="\(range.step)" value="\(now)" \
                    data-path="/api/v1/devices/\(Self.path(device.id))/commands" data-device="\(e(device.id))" \
                    data-type="\(e(place.type))" data-trait="\(e(place.trait))" data-attribute="\(e(written))" \
                    data-unit="\(e(range.unit))" aria-label="\(e(label))" \
                    aria-valuetext="\(e(Self.text(now, range.unit)))">
                    """
            }
        case .stepper?:
            if let metadata, let step = control.step,
                let now = personNumber(place.value, of: writtenKey, metadata: metadata),
                let unit = presenter.unit(of: writtenKey, metadata: metadata)?.symbol
            {
                for (sign, text) in [(-1.0, "−"), (1.0, "+")] {
                    let next = Self.text(now + sign * step, unit)
                    let body: JSONValue = [
                        "deviceType": .string(place.type), "trait": .string(place.trait),
                        "attribute": .string(written), "value": .string(next),
                    ]
                    let said = "\(name): \(presenter.name(of: writtenKey).lowercased()) \(next)"
                    html += bodyButton(device.id, body: body, label: said, text: text)
                }
            }
        case .choice?:
            if metadata?.format == .bool, presenter.words(of: writtenKey, metadata: metadata) == nil {
                let checked = place.value == .bool(true) ? " checked" : ""
                html += """
                     <input type="checkbox" role="switch"\(checked) \
                    data-path="/api/v1/devices/\(Self.path(device.id))/commands" data-device="\(e(device.id))" \
                    data-type="\(e(place.type))" data-trait="\(e(place.trait))" data-attribute="\(e(written))" \
                    aria-label="\(e(label))">
                    """
            } else if let words = presenter.words(of: writtenKey, metadata: metadata) {
                html += """
                     <select data-path="/api/v1/devices/\(Self.path(device.id))/commands" \
                    data-device="\(e(device.id))" data-type="\(e(place.type))" data-trait="\(e(place.trait))" \
                    data-attribute="\(e(written))" aria-label="\(e(label))">
                    """
                for word in words {
                    let selected = ValuePresenter.same(word.value, place.value) ? " selected" : ""
                    html += "<option value=\"\(e(word.word))\"\(selected)>\(e(word.word))</option>"
                }
                html += "</select>"
            }
        case nil:
            break
        }
        for button in control.commands {
            html +=
                " "
                + commandButton(
                    device.id, type: place.type, trait: place.trait, command: button.command,
                    label: "\(button.label) \(name)", text: button.label)
        }
        return html
    }

    /// A slider's ends and step in the person's unit (the ends in order: a cover's 0 % open is the
    /// model's 10 000); nil without both bounds.
    func sliderRange(_ key: String, _ metadata: AttributeMetadata) -> (
        low: Double, high: Double, step: Double, unit: String
    )? {
        guard let minimum = metadata.minimum, let maximum = metadata.maximum else { return nil }
        let unit = presenter.unit(of: key, metadata: metadata)
        func shown(_ bound: Double) -> Double {
            let value = unit?.transform.inverse(.double(bound), integral: false)?.numericValue ?? bound
            return Double(ValuePresenter.number(value, decimals: unit?.decimals ?? 0)) ?? value
        }
        let ends = [shown(minimum), shown(maximum)]
        var step = 1.0
        for _ in 0..<(unit?.decimals ?? 0) where step > 0.01 { step /= 10 }
        return (ends.min() ?? 0, ends.max() ?? 0, unit?.decimals == 0 ? 1 : step, unit?.symbol ?? "")
    }

    /// A value as a number in the person's unit (rounded as shown), nil for what is not a number.
    func personNumber(_ value: AttributeValue, of key: String, metadata: AttributeMetadata) -> Double? {
        guard let number = value.numericValue else { return nil }
        guard let unit = presenter.unit(of: key, metadata: metadata) else { return number }
        guard let shown = unit.transform.inverse(.double(number), integral: false)?.numericValue else { return nil }
        return Double(ValuePresenter.number(shown, decimals: unit.decimals))
    }

    /// A button whose API body is given whole.
    func bodyButton(_ device: String, body: JSONValue, label: String, text: String) -> String {
        """
        <button type="button" data-path="/api/v1/devices/\(Self.path(device))/commands" \
        data-device="\(e(device))" data-body="\(e(body.serialized()))" \
        aria-label="\(e(label))">\(e(text))</button>
        """
    }

    /// A number of a control as the page writes it for the API: `21.5 °C`, `40 % open`.
    static func text(_ value: Double, _ unit: String) -> String {
        let text = ValuePresenter.number(value, decimals: 2)
        return unit.isEmpty ? text : text + " " + unit
    }

    private func e(_ text: String) -> String { Self.escape(text) }
}
