import ArgumentParser
import Foundation
import TraitBridgeJSON

#if canImport(Glibc)
    import Glibc
#endif

/// `traitbridge camera live NAME --offer FILE`: starts a live view with a viewer's SDP offer and
/// prints the camera's answer and the session (`--json`: the guide's names).
struct CameraLiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Start a live view: send a viewer's SDP offer, print the camera's answer and the session.",
        discussion: """
            The answer is printed with the session (--json: {"answerSdp", "mediaSessionId", \
            "liveSessionDurationSeconds"}), or written to --answer for a viewer that reads it from a file. An offer \
            is at most 64 KB of SDP text. The session ends after liveSessionDurationSeconds unless extended \
            (camera extend), or with camera stop.
            """
    )

    @Argument(help: "The camera's id or name.")
    var camera: String
    @Option(help: "The file with the viewer's SDP offer (- for standard input).")
    var offer: String
    @Option(help: "Write the camera's SDP answer to this file (written whole, then renamed into place).")
    var answer: String?
    @Flag(help: "Print the answer and the session as JSON.")
    var json = false
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
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
}
