import Foundation
import TraitBridgeLocalBroker
import TraitBridgeEngine
import TraitBridgeModel
import TraitBridgeSimulator

/// The demo camera's live view: go2rtc's WebRTC API served by aiortc (`scripts/camera-peer.py`,
/// from `scripts/install-camera-peers.sh`) inside a network sandbox, which the bridge reaches over
/// its veth pair; and, once the bridge knows the camera, a viewer in the same sandbox whose offer
/// `traitbridge camera live` relays, to show real frames arrive. Without aiortc installed, or where
/// no sandbox can be made (not root), the demo's camera has no live view and the demo says why.
final class DemoCamera: @unchecked Sendable {
    let sandbox: NetworkSandbox
    let peer: ChildProcess
    let folder: URL
    let python: String
    let repository: String

    /// go2rtc's API as the frigate section names it.
    var go2rtc: String { "http://\(sandbox.peerAddress):1984" }
    var pids: [pid_t] { [peer.pid] }

    /// The checkout whose `.build-camera` holds aiortc: the one this `traitbridge` was built in, else
    /// the working directory.
    static var repository: String { checkout(holding: ".build-camera") }

    /// The checkout whose `venv` folder (`.build-camera`, `.build-homekit`) holds a peer's Python: the
    /// one this `traitbridge` was built in, else the working directory.
    static func checkout(holding venv: String) -> String {
        if let folder = DemoCommand.executableFolder {
            let checkout = URL(fileURLWithPath: folder).deletingLastPathComponent().deletingLastPathComponent().path
            if FileManager.default.isExecutableFile(atPath: checkout + "/" + venv + "/venv/bin/python") {
                return checkout
            }
        }
        return FileManager.default.currentDirectoryPath
    }

    /// `nil` (with the reason said) when aiortc is not installed, no sandbox can be made, or the
    /// endpoint does not start within 20 s.
    static func start(streams: [String], work: URL, say: (String) -> Void) -> DemoCamera? {
        let repository = repository
        let python = repository + "/.build-camera/venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            say(
                "== the camera has no live view: aiortc is not installed "
                    + "(scripts/install-camera-peers.sh, or make demo)"
            )
            return nil
        }
        if let reason = NetworkSandbox.unavailableReason(repository: repository) {
            say("== the camera has no live view: \(reason) (WebRTC gathers addresses on every interface it sees)")
            return nil
        }
        do {
            return try DemoCamera(repository: repository, python: python, streams: streams, work: work)
        } catch {
            say("== the camera has no live view: \(error)")
            return nil
        }
    }

    private init(repository: String, python: String, streams: [String], work: URL) throws {
        self.repository = repository
        self.python = python
        folder = work.appendingPathComponent("camera")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        sandbox = try NetworkSandbox(repository: repository)
        let log = folder.appendingPathComponent("camera-peer.log").path
        var arguments = [
            python, repository + "/scripts/camera-peer.py", "--host", sandbox.peerAddress, "--port", "1984",
        ]
        for stream in streams { arguments += ["--stream", stream] }
        do {
            peer = try ChildProcess(sandbox.command(arguments), logFile: log)
        } catch {
            sandbox.remove()
            throw error
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while !LogFile.read(log).contains("listening on"), ContinuousClock.now < deadline, peer.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard LogFile.read(log).contains("listening on") else {
            stop()
            throw DemoCameraError(message: "the camera's endpoint did not start: \(LogFile.read(log).suffix(300))")
        }
    }

    /// A viewer in the sandbox for `seconds`, its offer relayed by `traitbridge camera live` (this
    /// binary, over `broker`): one line saying what it got.
    func watch(camera: String, broker: String, seconds: Int) -> String {
        let offer = folder.appendingPathComponent("offer.sdp").path
        let answer = folder.appendingPathComponent("answer.sdp").path
        let log = folder.appendingPathComponent("viewer.log").path
        guard
            let viewer = try? ChildProcess(
                sandbox.command([
                    python, repository + "/scripts/camera-viewer.py", offer, answer, "--seconds", String(seconds),
                ]), logFile: log)
        else { return "the viewer did not start" }
        defer { viewer.stop() }
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: offer), ContinuousClock.now < deadline, viewer.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            let live = try? ChildProcess(
                [
                    executable, "camera", "live", camera, "--offer", offer, "--answer", answer, "--json", "--broker",
                    broker,
                ],
                logFile: folder.appendingPathComponent("live.log").path)
        else { return "traitbridge camera live did not run" }
        guard live.reap(within: .seconds(15)), live.exitStatus == 0 else {
            live.stop()
            return "traitbridge camera live failed: \(LogFile.read(folder.appendingPathComponent("live.log").path))"
        }
        guard viewer.reap(within: .seconds(seconds + 20)) else { return "the viewer did not finish" }
        let result = LogFile.read(log).split(separator: "\n").last { $0.hasPrefix("{") } ?? ""
        guard let data = String(result).data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let frames = object["frames"] as? Int
        else { return "the viewer said: \(LogFile.read(log).suffix(300))" }
        let first = (object["firstFrameSeconds"] as? Double).map { String(format: "%.2f", $0) } ?? "?"
        return
            "a viewer in the sandbox decoded \(frames) frames in \(seconds) s (the first \(first) s after the answer)"
    }

    func stop() {
        peer.stop()
        sandbox.remove()
    }
}

struct DemoCameraError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

extension DemoCamera {
    /// The mappings the demo serves: when the home has a camera's settings on cam2mqtt, a copy of
    /// the user's folder (if given) with `generic-camera-settings.json` from beside the scenario
    /// (the mapping that joins them into the Frigate camera), over the embedded catalog; else the
    /// user's folder.
    static func mappings(for home: Scenario, beside scenario: String, given: String?, work: URL) throws -> String? {
        let example = URL(fileURLWithPath: scenario).deletingLastPathComponent()
            .appendingPathComponent("generic-camera-settings.json").path  // beside the scenario
        guard home.devices.contains(where: { $0.deviceProtocol == .cam2mqtt }),
            FileManager.default.fileExists(atPath: example)
        else { return given }
        let mappings = work.appendingPathComponent("mappings")
        if let given { try FileManager.default.copyItem(atPath: given, toPath: mappings.path) }
        let folder = mappings.appendingPathComponent("generic")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: example, toPath: folder.appendingPathComponent("demo-camera-settings.json").path)
        return mappings.path
    }

    /// What the camera's settings from cam2mqtt read once joined (≤ 5 s), or why not; nil when the
    /// home has none.
    static func settings(of home: Scenario, in bridge: Bridge) -> String? {
        guard let settings = home.devices.first(where: { $0.deviceProtocol == .cam2mqtt }),
            let camera = home.devices.first(where: { $0.deviceProtocol == .frigate && $0.id == settings.id })
        else { return nil }
        let trait = TraitID.google("CameraAvStreamManagement")
        let deadline = ContinuousClock.now + .seconds(5)
        repeat {
            let device = bridge.snapshot.graph.devices.values.first { $0.name == camera.name }
            if let values = device?.deviceTypes.lazy.compactMap({ $0.trait(trait) }).first?.attributes,
                let night = values["nightVision"], let volume = values["speakerVolumeLevel"]
            {
                return "== \(camera.name)'s settings come from cam2mqtt, joined into the camera "
                    + "(examples/generic-camera-settings.json): nightVision \(night), speakerVolumeLevel \(volume)"
            }
            Thread.sleep(forTimeInterval: 0.05)
        } while ContinuousClock.now < deadline
        return "== \(camera.name)'s settings from cam2mqtt did not join the camera (is the mapping loaded?)"
    }
}
