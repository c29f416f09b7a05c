import ArgumentParser
import Foundation
import TraitBridgeJSON

/// The home, room, zone, group and scene commands' one way to the bridge: a request with its
/// fields (and `"home"` when given), the answer as JSON — or the bridge's refusal and exit 1.
enum LayoutRequest {
    @discardableResult
    static func send(
        _ operation: String, _ fields: [(String, JSONValue)], home: String? = nil, json: Bool = false,
        connection: ConnectionOptions
    ) throws -> JSON {
        var object = JSONObject()
        if let home { object.append("home", .string(home)) }
        for (key, value) in fields { object.append(key, value) }
        let (bytes, answer) = try BridgeRequest.json(
            operation, payload: JSONValue.object(object).serializedBytes(), connection: connection)
        if json { printJSON(bytes) }
        return answer
    }

    /// A table: a header and rows, columns as wide as their widest cell.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { line in
            line.enumerated().map { $1.padding(widths[$0]) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }

    /// The layout documents of one home (`--home`: by name or id; default: the primary one).
    static func homes(_ snapshot: BridgeSnapshot, home: String?) -> [JSON] {
        let all = snapshot.homes.values.sorted { ($0["name"]?.string ?? "") < ($1["name"]?.string ?? "") }
        guard let home else { return all.filter { $0["primary"]?.bool == true } }
        return all.filter { $0["id"]?.string == home || $0["name"]?.string?.lowercased() == home.lowercased() }
    }
}

/// `--home`: the home a layout command is about (name or id; default: the primary home).
struct HomeOption: ParsableArguments {
    @Option(help: "The home, by name or id (default: the primary home).")
    var home: String?
}

/// `--home` and `--zone` on `status` and `devices`: only the devices of a home, or of a zone's rooms.
struct PlaceFilter: ParsableArguments {
    @Option(help: "Only devices in this home (name or id).")
    var home: String?
    @Option(help: "Only devices in a room of this zone.")
    var zone: String?
}

/// A kind of layout item that `rename` and `remove` act on the same way (rooms, zones, groups, scenes).
protocol LayoutItemKind {
    /// The word in requests (`<noun>-rename`), fields and messages.
    static var noun: String { get }
    static var removeAbstract: String { get }
}

enum RoomItem: LayoutItemKind {
    static let noun = "room"
    static let removeAbstract = "Remove a room; its devices return to the default room."
}

enum ZoneItem: LayoutItemKind {
    static let noun = "zone"
    static let removeAbstract = "Remove a zone (its rooms stay)."
}

enum GroupItem: LayoutItemKind {
    static let noun = "group"
    static let removeAbstract = "Remove a group (its devices stay)."
}

enum SceneItem: LayoutItemKind {
    static let noun = "scene"
    static let removeAbstract = "Remove a user scene."
}

/// `<kind> rename ITEM NAME`.
struct RenameLayoutItem<Kind: LayoutItemKind>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "rename", abstract: "Rename a \(Kind.noun).")
    }
    @Argument(help: ArgumentHelp("The \(Kind.noun), by name or id.", valueName: Kind.noun)) var item: String
    @Argument(help: "The new name.") var name: String
    @OptionGroup var home: HomeOption
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        try LayoutRequest.send(
            "\(Kind.noun)-rename", [(Kind.noun, .string(item)), ("name", .string(name))], home: home.home,
            connection: connection)
        print("\(Kind.noun) '\(item)' is now '\(name)'")
    }
}

/// `<kind> remove ITEM`.
struct RemoveLayoutItem<Kind: LayoutItemKind>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "remove", abstract: Kind.removeAbstract)
    }
    @Argument(help: ArgumentHelp("The \(Kind.noun), by name or id.", valueName: Kind.noun)) var item: String
    @OptionGroup var home: HomeOption
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        try LayoutRequest.send(
            "\(Kind.noun)-remove", [(Kind.noun, .string(item))], home: home.home, connection: connection)
        print("removed \(Kind.noun) '\(item)'")
    }
}
