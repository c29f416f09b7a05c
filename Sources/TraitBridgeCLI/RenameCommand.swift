import ArgumentParser

/// `traitbridge rename DEVICE NAME`: the user's name for a device, which wins over the source's.
struct RenameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename",
        abstract: "Give a device the name people will use for it, kept across restarts.",
        discussion: """
            Some sources announce only an id (a Shelly is 'shellyplus1pm-4417939a5610' until you name it). The name is kept in the bridge's registry and wins over what the source says later; --reset gives back the source's name. Names are at most 64 characters, and no two devices share one (ignoring case and spaces). Exit codes: 0 renamed, 1 refused (the message says why), 3 broker or bridge not reachable, 4 device not found.

            Examples:
              traitbridge rename shellyplus1pm-4417939a5610 "Garage switch"
              traitbridge rename "Garage switch" --reset
            """
    )

    @Argument(help: "The device id or its current name.")
    var device: String
    @Argument(help: "The new name.")
    var name: String?
    @Flag(help: "Forget the name given here; the device takes its source's name again.")
    var reset = false
    @Flag(help: "Print the bridge's answer as JSON: {\"status\", \"device\", \"name\", \"room\"}.")
    var json = false
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if reset == (name != nil) { throw ValidationError("give a NAME, or --reset (not both)") }
    }

    func run() throws {
        try PlacementRequest.send("rename", field: "name", value: reset ? nil : name, device: device, json: json, connection: connection)
    }
}
