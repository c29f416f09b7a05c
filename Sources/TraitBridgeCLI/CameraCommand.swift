import ArgumentParser
import Foundation
import TraitBridgeJSON

/// `traitbridge camera …`: a camera's live view (WebRTC signalling relayed to the camera: Frigate's
/// go2rtc) and its recording, as the unified commands of `google.WebRtcLiveView` and
/// `google.PushAvStreamTransport` (what `traitbridge command` sends, with the answer printed).
struct CameraCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camera",
        abstract: "Start, extend and stop a camera's live view, talk back, turn its recording on or off, set it.",
        discussion: """
            The bridge relays signalling only: a viewer's SDP offer goes to the camera (Frigate's go2rtc), its \
            answer comes back with a session id that holds liveSessionDurationSeconds unless extended; media flows \
            between the viewer and the camera. A camera that does not record refuses live view \
            (failedPrecondition). Exit codes: 0 done, 1 refused, 3 broker or bridge not reachable, 4 no such device.

            Examples:
              traitbridge camera live "Front door" --offer offer.sdp --answer answer.sdp
              traitbridge camera extend "Front door" live-1764331200000-3
              traitbridge camera record "Front door" off
              traitbridge camera set "Front door" nightVision=auto
            """,
        subcommands: [
            CameraLiveCommand.self, CameraExtendCommand.self, CameraStopCommand.self, CameraTalkbackCommand.self,
            CameraRecordCommand.self, CameraSetCommand.self,
        ]
    )

    /// Sends `name` of `trait` with `arguments` to the camera; its result (a refusal exits).
    static func send(
        _ trait: String, _ name: String, _ arguments: JSONObject, to camera: String, connection: ConnectionOptions
    ) throws -> JSON {
        let command: JSONObject = ["trait": .string(trait), "command": .string(name), "arguments": .object(arguments)]
        return try CommandSender.outcome(
            of: command, to: camera, challenge: try ChallengeOptions.parse([]), connection: connection)
    }

    /// The `response` of a live view command, printed as `--json` (the guide's names) or in words.
    static func print(_ outcome: JSON, json: Bool, words: (JSONObject) -> String) {
        guard case .object(let response)? = outcome["response"]?.value else {
            FileHandleWriter.write((json ? "{}" : "done") + "\n", to: 1)
            return
        }
        FileHandleWriter.write((json ? JSONValue.object(response).serialized() : words(response)) + "\n", to: 1)
    }
}
