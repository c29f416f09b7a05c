import ArgumentParser
import TraitBridgeJSON

/// `traitbridge camera record NAME on|off`: the camera's recording (its push transport's status),
/// confirmed when the camera reports it.
struct CameraRecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record", abstract: "Turn a camera's recording on or off (confirmed by the camera).")

    @Argument(help: "The camera's id or name.")
    var camera: String
    @Argument(help: "on or off.")
    var state: String
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard state == "on" || state == "off" else { throw ValidationError("recording is on or off, not '\(state)'") }
    }

    func run() throws {
        let outcome = try CameraCommand.send(
            "google.PushAvStreamTransport", "setTransportStatus", ["transportStatus": .int(state == "on" ? 0 : 1)],
            to: camera, connection: connection)
        print("recording \(state): \(outcome["status"]?.string ?? "?")")
    }
}
