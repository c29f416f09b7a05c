import ArgumentParser
import TraitBridgeJSON

/// `traitbridge camera stop NAME SESSION`: a live view ends (the camera is told where it said how).
struct CameraStopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop a live view session.")

    @Argument(help: "The camera's id or name.")
    var camera: String
    @Argument(help: "The session (mediaSessionId) camera live printed.")
    var session: String
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        _ = try CameraCommand.send(
            "google.WebRtcLiveView", "stopLiveView", ["mediaSessionId": .string(session)], to: camera,
            connection: connection)
        print("live view \(session) stopped")
    }
}
