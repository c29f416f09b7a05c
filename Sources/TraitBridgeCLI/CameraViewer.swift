import ArgumentParser
import Foundation
import TraitBridgeJSON

/// The viewer `camera live` runs when it is given no offer: a program that writes its SDP offer to
/// OFFER, waits for the answer in ANSWER, and prints one JSON line `{"frames", "fps", …}` when it
/// has watched `--seconds` (the checkout's aiortc viewer, `scripts/camera-viewer.py`, is one).
struct CameraViewer {
    /// The command line: `--viewer`, else `$TRAITBRIDGE_CAMERA_VIEWER`, else the checkout's
    /// aiortc viewer beside this executable (`scripts/install-camera-peers.sh` installs it).
    let command: [String]

    init(_ given: String?) throws {
        if let text = given ?? ProcessInfo.processInfo.environment["TRAITBRIDGE_CAMERA_VIEWER"] {
            command = text.split(separator: " ").map(String.init)
            guard !command.isEmpty else { throw ValidationError("--viewer is empty; give the viewer's command") }
            return
        }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for _ in 0..<5 {
            folder.deleteLastPathComponent()
            let python = folder.appendingPathComponent(".build-camera/venv/bin/python").path
            let script = folder.appendingPathComponent("scripts/camera-viewer.py").path
            if FileManager.default.isExecutableFile(atPath: python), FileManager.default.fileExists(atPath: script) {
                command = [python, script]
                return
            }
        }
        throw ValidationError(
            "no viewer to run: give --offer FILE (your viewer's SDP offer), --viewer COMMAND, or install the "
                + "built-in one in a checkout (scripts/install-camera-peers.sh)")
    }

    /// What the viewer saw, as it printed it.
    struct Report {
        var frames: Int
        var fps: Double
        var object: JSONObject
    }

    /// Starts the viewer on files in a private folder; `offered` gets its offer, must return the
    /// answer (or throw), and the viewer's report comes back once it has watched `seconds`.
    func watch(seconds: Int, offered: (String) throws -> String) throws -> Report {
        var template = Array((NSTemporaryDirectory() + "/traitbridge-viewer-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ValidationError("cannot make a temporary folder") }
        let folder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let offer = folder + "/offer.sdp"
        let answer = folder + "/answer.sdp"
        let output = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst()) + [offer, answer, "--seconds", String(seconds)]
        process.standardOutput = output
        do { try process.run() } catch {
            throw ValidationError("cannot run the viewer \(command[0]): \(error.localizedDescription)")
        }
        defer { if process.isRunning { process.terminate() } }
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: offer) {
            guard process.isRunning, Date() < deadline else {
                throw ValidationError("the viewer made no offer within 30 s (\(command.joined(separator: " ")))")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let sdp = try String(contentsOfFile: offer, encoding: .utf8)
        let text = try offered(sdp)
        try Data(text.utf8).write(to: URL(fileURLWithPath: answer + ".part"))
        try FileManager.default.moveItem(atPath: answer + ".part", toPath: answer)
        // Bounded even for a viewer of the user's that never ends: it is stopped past its time.
        let end = Date().addingTimeInterval(Double(seconds) + 90)
        while process.isRunning, Date() < end { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").last { $0.hasPrefix("{") } ?? ""
        guard let root = try? JSONDocument.parse(Array(line.utf8)).root, case .object(let object) = root.value else {
            throw ValidationError("the viewer printed no report (exit \(process.terminationStatus))")
        }
        let frames = root["frames"]?.int64 ?? 0
        return Report(frames: Int(clamping: frames), fps: root["fps"]?.double ?? 0, object: object)
    }
}
