import Foundation
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgePresentation

/// The web UI's HTML, made from a copy of the state: every text escaped, every link and API path
/// built from ids, controls only for a role that may use them (control or admin).
struct WebHTML {
    let state: BridgeState
    let role: APIRole
    /// Values in people's words, and the cards' choice of values and controls.
    let presenter: ValuePresenter

    var canControl: Bool { role >= .control }

    // MARK: The page around everything

    static func document(title: String, body: String, csrf: String?, role: APIRole?) -> String {
        let navigation =
            csrf == nil
            ? ""
            : """
            <header><nav aria-label="Main"><a href="/ui/">Devices</a> <a href="/ui/home">Home</a>
            <form method="post" action="/ui/logout" class="inline"><button type="submit">Sign out</button></form>
            <span class="role">\(escape(role?.rawValue ?? ""))</span></nav></header>
            """
        let script = csrf == nil ? "" : #"<script src="/ui/assets/app.js" defer></script>"#
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            \(csrf.map { #"<meta name="csrf-token" content="\#(escape($0))">"# } ?? "")
            <title>\(escape(title)) · TraitBridge</title><link rel="icon" href="/ui/assets/icon.svg">
            <link rel="stylesheet" href="/ui/assets/app.css">\(script)
            </head><body>\(navigation)<main id="main"><h1>\(escape(title))</h1>
            <p id="status" role="status" aria-live="polite"></p><div id="challenge"></div>\(body)</main></body></html>
            """
    }

    static func loginForm(problem: String?) -> String {
        """
        \(problem.map { #"<p role="alert" class="bad">\#(escape($0))</p>"# } ?? "")
        <form method="post" action="/ui/login" class="login">
        <p><label for="username">User</label> <input id="username" name="username" autocomplete="username" required></p>
        <p><label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required></p>
        <p><button type="submit" id="sign-in">Sign in</button></p></form>
        <p>The owner's user and password of <code>http.oauth</code>, or the one-time link the demo prints.</p>
        """
    }

    /// The page a one-time link opens: the code is used when the button is pressed, not before.
    static func oneTimeForm(code: String) -> String {
        """
        <form method="post" action="/ui/login" class="login">
        <input type="hidden" name="code" value="\(escape(code))">
        <p><button type="submit" id="one-time">Sign in with this one-time link</button></p></form>
        <p>The link works once, within 15 minutes of being made.</p>
        """
    }

    static func missing(_ name: String) -> String {
        "<p>No device has the id or name '\(escape(name))'. <a href=\"/ui/\">All devices</a></p>"
    }

    // MARK: Devices by room

    func devicesByRoom(_ filter: DeviceFilter, limit: Int) -> String {
        let summaries = state.deviceSummaries(filter)
        var html = "<p>\(summaries.count) device\(summaries.count == 1 ? "" : "s")"
        if summaries.count > limit { html += "; the first \(limit) shown: narrow them with ?room=, ?connectivity=" }
        html += ".</p>"
        var room: String?? = .none
        for summary in summaries.prefix(limit) {
            let here = summary["room"]?.stringValue
            if room != .some(here) {
                if room != nil { html += "</div></section>" }
                room = .some(here)
                let title = here ?? "No room"
                html += "<section aria-label=\"\(escape(title))\"><h2>\(escape(title))</h2><div class=\"cards\">"
            }
            if let id = summary["id"]?.stringValue, let card = card(id) { html += card }
        }
        if room != nil { html += "</div></section>" }
        return html
    }

    func commandButton(
        _ device: String, type: String, trait: String, command: String, label: String, text: String
    ) -> String {
        let body: JSONValue = ["deviceType": .string(type), "trait": .string(trait), "command": .string(command)]
        return """
            <button type="button" data-path="/api/v1/devices/\(Self.path(device))/commands" \
            data-device="\(escape(device))" data-body="\(escape(body.serialized()))" \
            aria-label="\(escape(label))">\(escape(text))</button>
            """
    }

    // MARK: Reading the device's document

    /// `{"description": …, "state": …}` as a value.
    func document(_ id: String) -> JSONValue? {
        guard let bytes = state.deviceDocument(id) else { return nil }
        return try? JSONDocument.parse(bytes).root.value
    }

    /// The first trait (by device type) that has `traitID`, with its type's key.
    static func trait(_ traitID: String, in state: JSONValue?) -> (type: String, trait: JSONValue)? {
        guard case .object(let types)? = state?["types"] else { return nil }
        for (key, type) in types.members {
            if let trait = type["traits"]?[traitID] { return (key, trait) }
        }
        return nil
    }

    /// Why the first trait that is not online is not.
    static func firstReason(_ state: JSONValue?) -> String? {
        guard case .object(let types)? = state?["types"] else { return nil }
        for (_, type) in types.members {
            guard case .object(let traits)? = type["traits"] else { continue }
            for (_, trait) in traits.members where trait["connectivityState"]?.stringValue != "online" {
                if let reason = trait["reason"]?.stringValue { return reason }
            }
        }
        return nil
    }

    // MARK: Text

    static func escape(_ text: String) -> String { LinkingPages.escape(text) }

    private func escape(_ text: String) -> String { LinkingPages.escape(text) }

    /// An id as one path segment.
    static func path(_ id: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
