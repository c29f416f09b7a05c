import ArgumentParser
import Foundation
import TraitBridgeJSON

/// `traitbridge show DEVICE`: the device as a tree, and why each trait has its state.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one device: device types, traits, values with units, and why each trait is online or not.",
        discussion: """
            The tree is device → device types (primary marked *) → traits → attributes. Each trait shows its connectivity, locality, source, reason and since when. Exit codes: 0 ok, 3 broker not reachable, 4 device not found.

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
            print(JSONValue.object(["state": state.value, "description": description?.value ?? .null]).serialized(.pretty), terminator: "")
            return
        }
        print(Self.render(id: id, state: state, description: description, bridge: snapshot.bridgeState), terminator: "")
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

    static func render(id: String, state: JSON, description: JSON?, bridge: String?) -> String {
        var out = ""
        let name = state["name"]?.string ?? id
        out += "\(name)  (\(id))\n"
        out += "  connectivity: \(state["connectivityState"]?.string ?? "unknown") / \(state["dataSourceLocality"]?.string ?? "unspecified")"
        out += "   last update: \(state["lastUpdate"]?.string ?? "never")\n"
        if bridge != "online" { out += "  note: the bridge is \(bridge ?? "absent"); this is the last state it published\n" }
        if let description {
            out += "  home: \(description["home"]?.string ?? "–")   room: \(description["room"]?.string ?? "–")\n"
            let identity = description["identity"]
            var ids: [String] = []
            if let unique = identity?["uniqueId"]?.string { ids.append("uniqueId \(unique)") }
            for other in identity?["otherDeviceIds"]?.elements ?? [] {
                if let value = other["deviceId"]?.string { ids.append("\(other["agentId"]?.string ?? "other") \(value)") }
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
            out += "  \(key): \(type["type"]?.string ?? "?")\(primary)  [\(type["connectivityState"]?.string ?? "?") / \(type["dataSourceLocality"]?.string ?? "?")]\n"
            for (traitID, trait) in type["traits"]?.members ?? [] {
                let source = description?[path: JSONPath(components: [.key("types"), .key(key), .key("traits"), .key(traitID), .key("source")])]?.string
                out += "    \(traitID)  \(trait["connectivityState"]?.string ?? "?") / \(trait["dataSourceLocality"]?.string ?? "?")"
                if let source { out += "  via \(source)" }
                out += "\n"
                if let reason = trait["reason"]?.string {
                    out += "      why: \(reason)" + (trait["since"]?.string.map { " (since \($0))" } ?? "") + "\n"
                }
                let metadata = description?[path: JSONPath(components: [.key("types"), .key(key), .key("traits"), .key(traitID), .key("attributes")])]
                for (attribute, value) in trait["attributes"]?.members ?? [] {
                    var line = "      \(attribute) = \(value.value.serialized())"
                    if let unit = metadata?[attribute]?["unit"]?.string { line += " \(unit)" }
                    if let low = metadata?[attribute]?["min"]?.double, let high = metadata?[attribute]?["max"]?.double {
                        line += "  (\(format(low))…\(format(high)))"
                    }
                    out += line + "\n"
                }
            }
        }
        return out
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
