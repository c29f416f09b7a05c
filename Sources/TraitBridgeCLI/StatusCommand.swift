import ArgumentParser
import Foundation
import TraitBridgeJSON

/// `traitbridge status`: one line per device, and whether the bridge itself is there.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show each device's state, connectivity, locality and last update, and whether the bridge is online.",
        discussion: """
            One line per device, by room, then name; STATE is what a person looks for first, in their words (on, 78 %; 22.2 °C; locked), as mappings/presentation/values.json's cards choose. Reads what the bridge has published (retained) on the broker; works from any machine that reaches it. Exit codes: 0 ok, 3 broker not reachable, 4 a named device not found.

            Examples:
              traitbridge status
              traitbridge status z2m-0x00158d0001000001 "Hall light"
              traitbridge status --broker mqtt://192.168.1.10 --json
            """
    )

    @Argument(help: "Device ids or names (default: every device).")
    var devices: [String] = []
    @OptionGroup var place: PlaceFilter
    @OptionGroup var connection: ConnectionOptions
    @Flag(
        help: ArgumentHelp(
            "Print JSON: {\"bridge\": …, \"devices\": [{\"id\", \"name\", \"room\", \"type\", "
                + "\"connectivityState\", \"dataSourceLocality\", \"display\", \"lastUpdate\" (ISO 8601), "
                + "\"reason\"}], \"summary\": {…}, "
                + "and \"links\": {name: health} when the bridge has cloud links}.")
    )
    var json = false

    func run() throws {
        let snapshot = try BridgeSnapshot.readOrExit(connection)
        let prefix = connection.prefix
        var rows = StatusRow.rows(snapshot)
        if !devices.isEmpty {
            let wanted = Set(try devices.map { try snapshot.deviceID($0, prefix: prefix) })
            rows = rows.filter { wanted.contains($0.id) }
        }
        rows = rows.filter { snapshot.isIn($0.id, home: place.home, zone: place.zone) }
        if json {
            var root = StatusRow.json(rows, bridge: snapshot.bridgeState)
            if !snapshot.links.isEmpty, case .object(var object) = root {
                var links = JSONObject()
                for (name, health) in snapshot.links { links.append(name, health.value) }
                object.append("links", .object(links))
                root = .object(object)
            }
            print(root.serialized(.pretty), terminator: "")
        } else {
            print(
                StatusRow.table(rows, bridge: snapshot.bridgeState, prefix: prefix, style: .standardOutput),
                terminator: "")
            for (name, health) in snapshot.links { print(Self.linkLine(name, health)) }
        }
    }

    /// `cloud link b: 3 devices, ok` or `cloud link b: 3 devices, FAILING since …: error`.
    static func linkLine(_ name: String, _ health: JSON) -> String {
        let count = health["devices"]?.int64 ?? 0
        let devices = "\(count) device\(count == 1 ? "" : "s")"
        guard health["state"]?.string == "failing" else { return "cloud link \(name): \(devices), ok" }
        let since = health["since"]?.string ?? "?"
        return "cloud link \(name): \(devices), FAILING since \(since): \(health["error"]?.string ?? "no reason given")"
    }
}
