import ArgumentParser
import TraitBridgeJSON

/// `rename` and `move` in one place: find the device in the bridge's retained state, ask the
/// bridge to change its name or room, print what it is now.
enum PlacementRequest {
    /// `value` nil resets the field to what the sources say.
    static func send(
        _ operation: String, field: String, value: String?, device: String, home: String? = nil, json: Bool,
        connection: ConnectionOptions
    ) throws {
        let id = try BridgeSnapshot.readOrExit(connection).deviceID(device, prefix: connection.prefix)
        var request = JSONObject()
        request.append("device", .string(id))
        request.append(field, value.map { .string($0) } ?? .null)
        if let home { request.append("home", .string(home)) }
        let (bytes, answer) = try BridgeRequest.json(
            operation, payload: JSONValue.object(request).serializedBytes(), connection: connection)
        if json { return printJSON(bytes) }
        let name = answer["name"]?.string ?? id
        let room = answer["room"]?.string ?? "no room"
        let homeName = answer["home"]?.string.map { " (\($0))" } ?? ""
        print("\(name) (\(id)) is in \(room)\(homeName)")
    }
}
