import Foundation
import TraitBridgeLocalBroker

/// A second python-matter-server beside a ``MatterServerPeer``, in the same network sandbox: its own
/// storage folder (so its own certificate authority, root and fabric), its own WebSocket port and
/// fabric ID. It takes no machine lock of its own: it is started after the first one, which holds the
/// lock, and stopped before it. The CHIP SDK's platform files (`/data/chip_*.ini`, `/tmp/chip_kvs`) are
/// shared by the two, as they are by the Matter Server and the SDK's controller in
/// `MatterServerCommissioningTests`, and so is the sandbox's network (the SDK's controllers bind no fixed
/// UDP port; two of them side by side did not collide).
final class SecondMatterServer: @unchecked Sendable {
    let port: Int
    let directory: URL
    let sandbox: NetworkSandbox
    private var process: ChildProcess?
    private let python: String
    private let script: String
    var log: String { directory.appendingPathComponent("server.log").path }
    var url: String { "ws://\(sandbox.peerAddress):\(port)/ws" }

    /// Starts it in `sandbox` with `fabricID` on `port` (not the first one's 5580), trusting the PAA roots
    /// in `paaDirectory`; waits (≤ 60 s) until its WebSocket answers.
    init(repository: String, sandbox: NetworkSandbox, paaDirectory: String, port: Int = 5581, fabricID: Int = 2) throws
    {
        guard let executable = MatterServerPeer.executable(repository: repository) else {
            throw MatterServerPeer.PeerError.notInstalled(repository + "/.build-matter/venv/bin/matter-server")
        }
        (self.port, self.sandbox) = (port, sandbox)
        python = repository + "/.build-matter/venv/bin/python"
        script = repository + "/scripts/matter-server-command.py"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tb-matter-b-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        process = try ChildProcess(
            sandbox.command([
                executable, "--storage-path", directory.appendingPathComponent("storage").path, "--port", "\(port)",
                "--listen-address", sandbox.peerAddress, "--paa-root-cert-dir", paaDirectory, "--fabricid",
                "\(fabricID)", "--log-level", "warning",
            ]), logFile: log)
        let deadline = ContinuousClock.now + .seconds(60)
        while !MosquittoBroker.canConnect(host: sandbox.peerAddress, port: port) {
            guard ContinuousClock.now < deadline, process?.isRunning == true else {
                let text = LogFile.read(log)
                stop()
                throw MatterServerPeer.PeerError.didNotStart(String(text.suffix(2000)))
            }
            usleep(200_000)
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops it (SIGTERM, then SIGKILL after 5 s).
    func stop() {
        process?.stop()
        process = nil
    }

    /// Sends commands (as ``MatterServerPeer/sendPolled(_:)`` does: a client process, polled every 100 ms,
    /// at most 60 s); the server's answer to each.
    func sendPolled(_ commands: [String]) async throws -> [String] {
        let output = directory.appendingPathComponent("answers-\(UUID().uuidString).jsonl").path
        try Data(commands.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: output + ".commands"))
        defer { for path in [output, output + ".commands"] { try? FileManager.default.removeItem(atPath: path) } }
        let client = try ChildProcess(
            [python, script, url, output + ".commands", output],
            logFile: directory.appendingPathComponent("commands.log").path)
        let deadline = ContinuousClock.now + .seconds(120)
        while !client.reap(within: .zero) {
            guard ContinuousClock.now < deadline else {
                client.kill()
                throw MatterServerPeer.PeerError.refused("no answer within the time the commands were given")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return LogFile.read(output).split(separator: "\n").map(String.init)
    }
}
