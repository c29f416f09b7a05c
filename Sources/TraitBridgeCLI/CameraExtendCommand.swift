import ArgumentParser
import TraitBridgeJSON

/// `traitbridge camera extend NAME SESSION`: a live view holds longer.
struct CameraExtendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend", abstract: "Extend a live view session; prints how long it holds now.")

    @Argument(help: "The camera's id or name.")
    var camera: String
    @Argument(help: "The session (mediaSessionId) camera live printed.")
    var session: String
    @Option(help: "Seconds from now (at most the bridge's session length, 300).")
    var seconds: Int?
    @Flag(help: "Print the answer as JSON.")
    var json = false
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        var arguments: JSONObject = ["mediaSessionId": .string(session)]
        if let seconds { arguments["extendedDurationSeconds"] = .int(Int64(seconds)) }
        let outcome = try CameraCommand.send(
            "google.WebRtcLiveView", "extendLiveView", arguments, to: camera, connection: connection)
        CameraCommand.print(outcome, json: json) { response in
            "live view \(session) holds \(response["liveSessionDurationSeconds"].map { $0.serialized() } ?? "?") s more"
        }
    }
}
