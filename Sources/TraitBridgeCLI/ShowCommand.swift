import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

/// `traitbridge show DEVICE`: the device as a tree, and why each trait has its state.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one device: device types, traits, values with units, and why each trait is online or not.",
        discussion: """
            The tree is device → device types (primary marked *) → traits → attributes and commands. Each trait shows its connectivity, locality, source, reason and since when; each attribute its value in people's words (22.2 °C, locked), then its name and value as sent (what `set` and --json use) and, when it can be written, what it accepts; each command its fields ([optional]). Exit codes: 0 ok, 3 broker not reachable, 4 device not found.

            Examples:
              traitbridge show z2m-0x00158d0001000001
              traitbridge show "Hall light" --json
            """
    )

    @Argument(help: "The device id or name.")
    var device: String
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print {\"state\": <state payload>, \"description\": <description payload>} as JSON.")
    var json = false

    func run() throws {
        let snapshot = try BridgeSnapshot.readOrExit(connection)
        let prefix = connection.prefix
        let id = try snapshot.deviceID(device, prefix: prefix)
        guard let state = snapshot.states[id] else { throw ExitCode(4) }
        let description = snapshot.descriptions[id]
        if json {
            print(
                JSONValue.object(["state": state.value, "description": description?.value ?? .null]).serialized(
                    .pretty), terminator: "")
            return
        }
        let text = Self.render(
            id: id, state: state, description: description, bridge: snapshot.bridgeState,
            catalog: PeoplesWords.catalog())
        print(text, terminator: "")
        if let sessions = try liveViews(of: id, state: state) { print(sessions, terminator: "") }
    }

    /// A camera's open live views, asked of the bridge (`camera-sessions`); nil for other devices.
    private func liveViews(of id: String, state: JSON) throws -> String? {
        let traits = (state["types"]?.members ?? []).flatMap { $0.value["traits"]?.members.map(\.key) ?? [] }
        guard traits.contains("google.WebRtcLiveView") || traits.contains("google.CameraStream") else { return nil }
        let request = JSONValue.object(["device": .string(id)]).serializedBytes()
        let sessions = try BridgeRequest.json("camera-sessions", payload: request, connection: connection).root
        let open = sessions["sessions"]?.elements ?? []
        guard !open.isEmpty else { return "  live views: none open\n" }
        var out = "  live views:\n"
        for session in open {
            out += "    \(session["mediaSessionId"]?.string ?? "?")  until \(session["expires"]?.string ?? "?")"
            if session["talkback"]?.bool == true { out += "  talkback on" }
            if session["viewer"]?.string == "cameraStream" { out += "  (Google's viewer)" }
            out += "\n"
        }
        return out
    }

    static func render(id: String, state: JSON, description: JSON?, bridge: String?, catalog: Catalog? = nil) -> String
    {
        var out = ""
        let name = state["name"]?.string ?? id
        out += "\(name)  (\(id))\n"
        out +=
            "  connectivity: \(state["connectivityState"]?.string ?? "unknown") / "
            + (state["dataSourceLocality"]?.string ?? "unspecified")
        out += "   last update: \(state["lastUpdate"]?.string ?? "never")\n"
        if bridge != "online" {
            out += "  note: the bridge is \(bridge ?? "absent"); this is the last state it published\n"
        }
        if let description {
            out += "  home: \(description["home"]?.string ?? "–")   room: \(description["room"]?.string ?? "–")\n"
            let identity = description["identity"]
            var ids: [String] = []
            if let unique = identity?["uniqueId"]?.string { ids.append("uniqueId \(unique)") }
            for other in identity?["otherDeviceIds"]?.elements ?? [] {
                if let value = other["deviceId"]?.string {
                    ids.append("\(other["agentId"]?.string ?? "other") \(value)")
                }
            }
            if !ids.isEmpty { out += "  identity: \(ids.joined(separator: ", "))\n" }
            let info = description["deviceInfo"]
            let made = [info?["manufacturer"]?.string, info?["model"]?.string].compactMap { $0 }
            if !made.isEmpty { out += "  device: \(made.joined(separator: " "))\n" }
            let sources = description["sources"]?.elements.compactMap(\.string) ?? []
            if !sources.isEmpty { out += "  sources: \(sources.joined(separator: ", "))\n" }
        }
        for (key, type) in state["types"]?.members ?? [] {
            let primary = type["isPrimaryType"]?.bool == true ? " *" : ""
            let typeID = type["type"]?.string ?? "?"
            out += "  \(key): \(typeID)\(primary)  [\(type["connectivityState"]?.string ?? "?") / "
            out += "\(type["dataSourceLocality"]?.string ?? "?")]\n"
            for (traitID, trait) in type["traits"]?.members ?? [] {
                let described = description?[
                    path: JSONPath(components: [
                        .key("types"), .key(key), .key("traits"), .key(traitID),
                    ])]
                out += "    \(PeoplesWords.presenter.traitName(traitID)) (\(traitID))  "
                out += "\(trait["connectivityState"]?.string ?? "?") / \(trait["dataSourceLocality"]?.string ?? "?")"
                if let source = described?["source"]?.string { out += "  via \(source)" }
                out += "\n"
                if let reason = trait["reason"]?.string {
                    out += "      why: \(reason)" + (trait["since"]?.string.map { " (since \($0))" } ?? "") + "\n"
                }
                out += attributeLines(trait, traitID: traitID, described: described)
                let commands = described?["commands"]?.elements.compactMap(\.string) ?? []
                if !commands.isEmpty {
                    let written = commands.map { command(traitID, $0, catalog: catalog) }
                    out += "      commands: \(written.joined(separator: ", "))\n"
                }
            }
        }
        return out
    }

    /// One line an attribute: its name, its value in people's words, then the model's name and value
    /// (what `set` and `--json` use) and, when it can be written, what it accepts.
    private static func attributeLines(_ trait: JSON, traitID: String, described: JSON?) -> String {
        let presenter = PeoplesWords.presenter
        var rows: [(name: String, shown: String, raw: String)] = []
        for (attribute, value) in trait["attributes"]?.members ?? [] {
            let key = ValuePresenter.key(trait: traitID, attribute: attribute)
            let metadata = described?["attributes"]?[attribute].flatMap { AttributeMetadata(described: $0.value) }
            var raw = "\(attribute) = \(value.value.serialized())"
            if let metadata, metadata.isWritable {
                raw += presenter.allowed(of: key, metadata: metadata).map { "; set: \($0)" } ?? "; writable"
            }
            let shown = presenter.text(AttributeValue(jsonValue: value.value), of: key, metadata: metadata)
            rows.append((presenter.name(of: key), shown, raw))
        }
        let nameWidth = rows.map(\.name.count).max() ?? 0
        let shownWidth = rows.map(\.shown.count).max() ?? 0
        return rows.map { "      \($0.name.padding(nameWidth))  \($0.shown.padding(shownWidth))  (\($0.raw))\n" }
            .joined()
    }

    /// `toggle`, or `moveToLevel(level, [transitionTime], …)` with the catalog's fields (optional
    /// ones in brackets) when the catalog is at hand.
    static func command(_ traitID: String, _ name: String, catalog: Catalog?) -> String {
        guard let id = TraitID(parsing: traitID),
            let definition = catalog?.trait(id)?.commands.first(where: {
                $0.name == name
            }), !definition.fields.isEmpty
        else { return name }
        return name + "(" + definition.fields.map { $0.isOptional ? "[\($0.name)]" : $0.name }.joined(separator: ", ")
            + ")"
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
