import ArgumentParser
import Foundation
import TraitBridgeJSON

#if canImport(Glibc)
    import Glibc
#endif

/// `traitbridge camera live NAME --offer FILE`: starts a live view with a viewer's SDP offer and
/// prints the camera's answer and the session (`--json`: the guide's names). Without `--offer`, runs
/// a viewer (``CameraViewer``) for `--seconds`, prints the frames it decoded, and stops the session.
struct CameraLiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Start a live view: send a viewer's SDP offer, print the camera's answer and the session.",
        discussion: """
            The answer is printed with the session (--json: {"answerSdp", "mediaSessionId", \
            "liveSessionDurationSeconds"}), or written to --answer for a viewer that reads it from a file. An offer \
            is at most 64 KB of SDP text. The session ends after liveSessionDurationSeconds unless extended \
            (camera extend), or with camera stop. Without --offer, the built-in viewer (aiortc, in a checkout: \
            scripts/install-camera-peers.sh) or --viewer makes the offer, watches for --seconds and reports the \
            frames it decoded; the session is stopped after. Exit 1 when no frame came.
            """
    )

    @Argument(help: "The camera's id or name.")
    var camera: String
    @Option(help: "The file with the viewer's SDP offer (- for standard input); none: run a viewer.")
    var offer: String?
    @Option(help: "Without --offer: how long the viewer watches (seconds).")
    var seconds = 5
    @Option(help: "Without --offer: the viewer's command (given OFFER ANSWER --seconds N; prints a JSON report).")
    var viewer: String?
    @Option(help: "Write the camera's SDP answer to this file (written whole, then renamed into place).")
    var answer: String?
    @Flag(help: "Print the answer and the session as JSON.")
    var json = false
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard (1...600).contains(seconds) else { throw ValidationError("--seconds is 1…600, not \(seconds)") }
        if offer != nil, viewer != nil { throw ValidationError("--viewer makes its own offer; give one or the other") }
    }

    func run() throws {
        guard let offer else { return try watch() }
        let bytes: Data
        do {
            bytes =
                offer == "-"
                ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: offer))
        } catch {
            throw ValidationError("cannot read the offer \(offer): \(error.localizedDescription)")
        }
        guard bytes.count <= 65_536, let sdp = String(data: bytes, encoding: .utf8) else {
            throw ValidationError("the offer \(offer) is not SDP text of at most 64 KB")
        }
        let outcome = try CameraCommand.send(
            "google.WebRtcLiveView", "startLiveView", ["offerSdp": .string(sdp)], to: camera, connection: connection)
        if let answer, let sdp = outcome["response"]?["answerSdp"]?.string {
            let part = answer + ".part"
            do {
                try Data(sdp.utf8).write(to: URL(fileURLWithPath: part))
                // rename(2): a viewer polling for the file sees it whole or not at all.
                guard rename(part, answer) == 0 else { throw CocoaError(.fileWriteUnknown) }
            } catch {
                printError("error: cannot write the answer to \(answer): \(error.localizedDescription)")
                throw ExitCode.failure
            }
        }
        CameraCommand.print(outcome, json: json) { response in
            var id = "?"
            var sdp = ""
            if case .string(let text)? = response["mediaSessionId"] { id = text }
            if case .string(let text)? = response["answerSdp"] { sdp = text }
            let seconds = response["liveSessionDurationSeconds"].map { $0.serialized() } ?? "?"
            let shown = answer.map { "written to \($0)" } ?? "\n" + sdp
            return "live view \(id) for \(seconds) s; the camera's answer \(shown)"
        }
    }

    /// The built-in viewer: its offer sent, its answer given, its frames reported, the session stopped.
    private func watch() throws {
        let viewer = try CameraViewer(viewer)
        var session: String?
        let report = try viewer.watch(seconds: seconds) { sdp in
            let outcome = try CameraCommand.send(
                "google.WebRtcLiveView", "startLiveView", ["offerSdp": .string(sdp)], to: camera,
                connection: connection)
            guard let answer = outcome["response"]?["answerSdp"]?.string else {
                throw ValidationError("the camera gave no answer")
            }
            session = outcome["response"]?["mediaSessionId"]?.string
            return answer
        }
        if let session {
            _ = try? CameraCommand.send(
                "google.WebRtcLiveView", "stopLiveView", ["mediaSessionId": .string(session)], to: camera,
                connection: connection)
        }
        if json {
            var object = report.object
            object["mediaSessionId"] = session.map { .string($0) } ?? .null
            FileHandleWriter.write(JSONValue.object(object).serialized() + "\n", to: 1)
        } else {
            let fps = (report.fps * 10).rounded() / 10
            FileHandleWriter.write(
                "live view \(session ?? "?"): \(report.frames) frames decoded in \(seconds) s (\(fps) fps); stopped\n",
                to: 1)
        }
        if report.frames == 0 { throw ExitCode.failure }
    }
}
