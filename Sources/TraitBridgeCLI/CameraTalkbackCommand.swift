import ArgumentParser
import TraitBridgeJSON

/// `traitbridge camera talkback NAME SESSION on|off`: two-way audio on a live view (the viewer's
/// offer carries the audio it sends; the session records whether talkback is on).
struct CameraTalkbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "talkback", abstract: "Start or stop talking back (two-way audio) on a live view session.")

    @Argument(help: "The camera's id or name.")
    var camera: String
    @Argument(help: "The session (mediaSessionId) camera live printed.")
    var session: String
    @Argument(help: "on or off.")
    var state: String
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard state == "on" || state == "off" else { throw ValidationError("talkback is on or off, not '\(state)'") }
    }

    func run() throws {
        _ = try CameraCommand.send(
            "google.WebRtcLiveView", state == "on" ? "startTalkback" : "stopTalkback",
            ["mediaSessionId": .string(session)], to: camera, connection: connection)
        print("talkback \(state) on live view \(session)")
    }
}
