import ArgumentParser

/// `traitbridge move DEVICE ROOM`: the room the user puts a device in, which wins over the sources'.
struct MoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move",
        abstract: "Put a device in a room (made if needed), kept across restarts.",
        discussion: """
            zigbee2mqtt, Tasmota and Shelly know no rooms, so their devices start in the home's default room, "Entire Home"; Home Assistant's suggested_area and the cloud's roomHint place theirs. The room chosen here wins over both; --reset takes the device back to the default room. Room names hold letters, digits, spaces and apostrophes (HomeKit's rule). Exit codes: 0 moved, 1 refused (the message says why), 3 broker or bridge not reachable, 4 device not found.

            Examples:
              traitbridge move "Garage switch" Garage
              traitbridge move "Hall light" --reset
              traitbridge move "Porch light" Porch --home "Beach House"
            """
    )

    @Argument(help: "The device id or name.")
    var device: String
    @Argument(help: "The room.")
    var room: String?
    @Flag(help: "Take the device back to the home's default room.")
    var reset = false
    @Option(help: "Move the device to this home (name or id); ROOM is a room of it (default: its default room).")
    var home: String?
    @Flag(help: "Print the bridge's answer as JSON: {\"status\", \"device\", \"name\", \"room\"}.")
    var json = false
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if reset && room != nil { throw ValidationError("give a ROOM, or --reset (not both)") }
        if !reset && room == nil && home == nil { throw ValidationError("give a ROOM, --home, or --reset") }
    }

    func run() throws {
        try PlacementRequest.send(
            "move", field: "room", value: reset ? nil : room, device: device, home: home, json: json,
            connection: connection)
    }
}
