import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeTesting

/// The camera peers of the live view tests (aiortc, `scripts/install-camera-peers.sh` makes its
/// venv): the simulated camera and the viewer, each run inside a network sandbox.
enum CameraPeers {
    static let python = CommandRunner.repository + "/.build-camera/venv/bin/python"

    /// Why the camera peers cannot run here (no network sandbox, aiortc not installed), or nil.
    static var unavailableReason: String? {
        if let reason = NetworkSandbox.unavailableReason(repository: CommandRunner.repository) { return reason }
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "aiortc is not installed (scripts/install-camera-peers.sh; make test runs it)"
        }
        return nil
    }

    /// The go2rtc-compatible camera on `sandbox`'s peer address, port 1984, stream `front_door`.
    static func camera(in sandbox: NetworkSandbox, log: String) throws -> ChildProcess {
        let camera = try ChildProcess(
            sandbox.command([
                python, CommandRunner.repository + "/scripts/camera-peer.py", "--host", sandbox.peerAddress, "--port",
                "1984", "--stream", "front_door",
            ]), logFile: log)
        #expect(eventually(timeout: .seconds(20)) { LogFile.read(log).contains("listening on") }, "the camera listens")
        return camera
    }

    /// A viewer in the sandbox; its offer file once it wrote it.
    static func viewer(
        in sandbox: NetworkSandbox, folder: URL, seconds: Int, stopFile: String? = nil, talkback: Bool = false
    ) throws -> (process: ChildProcess, offer: String, answer: String, log: String) {
        let name = UUID().uuidString
        let offer = folder.appendingPathComponent("\(name).offer").path
        let answer = folder.appendingPathComponent("\(name).answer").path
        let log = folder.appendingPathComponent("\(name).viewer").path
        var arguments = [
            python, CommandRunner.repository + "/scripts/camera-viewer.py", offer, answer, "--seconds", String(seconds),
        ]
        if let stopFile { arguments += ["--stop-file", stopFile] }
        if talkback { arguments.append("--talkback") }
        let process = try ChildProcess(sandbox.command(arguments), logFile: log)
        #expect(eventually(timeout: .seconds(20)) { FileManager.default.fileExists(atPath: offer) }, "an offer")
        return (process, offer, answer, log)
    }

    /// The camera's own count of open sessions (`GET /api/stats`, over the veth pair, read by
    /// the venv's Python: this Foundation has no HTTP in `Data(contentsOf:)`).
    static func sessions(in sandbox: NetworkSandbox) throws -> Int? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "-c",
            "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=3).read().decode())",
            "http://\(sandbox.peerAddress):1984/api/stats",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?["sessions"] as? Int
    }

    /// The frames a viewer decoded, from the JSON line it printed when it ended.
    static func frames(_ log: String) -> Int? {
        let line = LogFile.read(log).split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return object?["frames"] as? Int
    }
}
