public import Foundation

/// A real Open Home Foundation Matter Server (python-matter-server, installed by
/// `scripts/install-matter-server.sh` into `.build-matter/venv`) inside a ``NetworkSandbox`` (its
/// CHIP stack speaks mDNS on every interface it has), listening on the sandbox's address, with its
/// own storage folder, stopped by PID: for the tests, the simulator and the demo.
/// Node dumps are loaded with its `import_test_node` command (Home Assistant's diagnostics shape).
public final class MatterServerPeer: @unchecked Sendable {
    /// The server's own default port; each sandbox has its ports to itself.
    public let port = 5580
    public let directory: URL
    /// The namespace it runs in (the light's, when it commissions one).
    public let sandbox: NetworkSandbox
    private var process: ChildProcess?
    private let repository: String
    private var python: String { repository + "/.build-matter/venv/bin/python" }
    /// Held while the server runs: one Matter Server at a time on this machine (their CHIP stacks
    /// share `/data`).
    private var lock: MachineLock?

    public enum PeerError: Error, CustomStringConvertible {
        case notInstalled(String)
        case didNotStart(String)
        case refused(String)
        case busy

        public var description: String {
            switch self {
            case .notInstalled(let path):
                "the Matter Server is not installed at \(path): run scripts/install-matter-server.sh"
            case .didNotStart(let log): "the Matter Server did not start within 60 s; its log: \(log)"
            case .refused(let answer): "the Matter Server refused: \(answer)"
            case .busy:
                "another Matter Server of TraitBridge's ran on this machine for \(MatterServerPeer.lockWait);"
                    + " stop it and try again"
            }
        }
    }

    /// `<repository>/.build-matter/venv/bin/matter-server`, when it is installed.
    public static func executable(repository: String) -> String? {
        let path = repository + "/.build-matter/venv/bin/matter-server"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Why no Matter Server can run here (not installed, or no network sandbox can be made), or nil.
    public static func unavailableReason(repository: String) -> String? {
        if executable(repository: repository) == nil {
            return "the Matter Server is not installed: run scripts/install-matter-server.sh (make test does)"
        }
        return NetworkSandbox.unavailableReason(repository: repository)
    }

    /// Starts the server in `sandbox` (a new one when nil) and waits (≤ 60 s) until its WebSocket
    /// port answers. `paaDirectory`: the PAA roots it trusts (a ``MatterLightPeer``'s, whose sandbox
    /// it must share); without it, an empty folder it never fills from the network (marked fresh).
    public init(
        repository: String, sandbox: NetworkSandbox? = nil, paaDirectory: String? = nil,
        shouldStop: @escaping () -> Bool = { false }
    ) throws {
        guard let executable = Self.executable(repository: repository) else {
            throw PeerError.notInstalled(repository + "/.build-matter/venv/bin/matter-server")
        }
        self.repository = repository
        self.sandbox = try sandbox ?? NetworkSandbox(repository: repository)
        guard let lock = MachineLock("matter-server", waitUpTo: Self.lockWait, shouldStop: shouldStop) else {
            throw PeerError.busy
        }
        self.lock = lock
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tb-matter-\(UUID().uuidString)")
        let certificates = paaDirectory.map { URL(fileURLWithPath: $0) } ?? directory.appendingPathComponent("paa")
        let log = directory.appendingPathComponent("server.log").path
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: certificates, withIntermediateDirectories: true)
            let marker = certificates.appendingPathComponent(".version")
            if !FileManager.default.fileExists(atPath: marker.path) { try Data("1".utf8).write(to: marker) }
            process = try ChildProcess(
                self.sandbox.command([
                    executable, "--storage-path", directory.appendingPathComponent("storage").path, "--port",
                    "\(port)", "--listen-address", self.sandbox.peerAddress, "--paa-root-cert-dir",
                    certificates.path, "--log-level", "warning",
                ]), logFile: log)
        } catch {
            stop()  // lets the next server start
            throw error
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while !MosquittoBroker.canConnect(host: self.sandbox.peerAddress, port: port) {
            guard ContinuousClock.now < deadline, process?.isRunning == true, !shouldStop() else {
                let text = LogFile.read(log)
                stop()
                throw PeerError.didNotStart(String(text.suffix(2000)))
            }
            usleep(200_000)
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    public var url: String { "ws://\(sandbox.peerAddress):\(port)/ws" }

    /// How long a start waits for another Matter Server of ours (one at a time: port 5580): under `make
    /// test` five suites take turns, each holding it up to a minute or two under AddressSanitizer.
    public static let lockWait = Duration.seconds(600)
    public var pid: pid_t? { process?.pid }

    /// Stops the server (SIGTERM, then SIGKILL after 5 s).
    public func stop() {
        process?.stop()
        process = nil
        lock?.release()
    }

    /// Loads node dumps (each a node object's JSON text, as in `../shared/corpus/matter/nodes`);
    /// the server numbers them from 900000 in the order given.
    public func importNodes(_ nodes: [String]) throws {
        if let (index, answer) = try importEach(nodes).min(by: { $0.key < $1.key }) {
            throw PeerError.refused("node dump \(index + 1): " + answer)
        }
    }

    /// Loads node dumps, each on its own: the server's refusal of each one it did not take, by its
    /// index (the others are in).
    public func importEach(_ nodes: [String]) throws -> [Int: String] {
        var commands: [String] = []
        for (index, node) in nodes.enumerated() {
            let dump = #"{"data":{"node":\#(node)}}"#
            let escaped = String(
                decoding: try JSONSerialization.data(withJSONObject: [dump], options: []), as: UTF8.self)
            let argument = escaped.dropFirst().dropLast()  // the JSON string literal of the dump
            commands.append(
                #"{"message_id":"import-\#(index)","command":"import_test_node","args":{"dump":\#(argument)}}"#)
        }
        var refused: [Int: String] = [:]
        for (index, answer) in try send(commands).enumerated() where !answer.contains(#""result""#) {
            refused[index] = String(answer.prefix(500))
        }
        return refused
    }

    /// Commissions a device on the sandbox's loopback (`commission_on_network` with its passcode and
    /// 127.0.0.1: a ``MatterLightPeer`` in the same sandbox); the server's answer (the node, or an error).
    public func commission(passcode: Int) throws -> String {
        try send([Self.commissionCommand(passcode: passcode, address: "127.0.0.1")]).first ?? ""
    }

    /// `commission_on_network` with `passcode`, at `address` (port 5540), or found by DNS-SD when nil.
    public static func commissionCommand(passcode: Int, address: String?) -> String {
        #"{"message_id":"commission","command":"commission_on_network","args":{"setup_pin_code":\#(passcode)"#
            + (address.map { #","ip_addr":"\#($0)""# } ?? "") + "}}"
    }

    /// Sends commands (JSON texts, each with its own `"message_id"`) and returns the server's
    /// answer to each. The WebSocket is spoken by `scripts/matter-server-command.py` in a process
    /// of its own: a test that waits here blocks no thread an in-process client would need.
    public func send(_ commands: [String]) throws -> [String] {
        let (client, output) = try startClient(commands)
        defer { for path in [output, output + ".commands"] { try? FileManager.default.removeItem(atPath: path) } }
        guard client.reap(within: Self.clientTime(commands)) else {
            client.kill()
            throw PeerError.refused("no answer within the time the commands were given")
        }
        return LogFile.read(output).split(separator: "\n").map(String.init)
    }

    /// ``send(_:)`` without holding a thread while the server works: the client is polled every 100 ms
    /// (for a test whose own device, in the same process, must answer the server meanwhile).
    public func sendPolled(_ commands: [String]) async throws -> [String] {
        let (client, output) = try startClient(commands)
        defer { for path in [output, output + ".commands"] { try? FileManager.default.removeItem(atPath: path) } }
        let deadline = ContinuousClock.now + Self.clientTime(commands)
        while !client.reap(within: .zero) {
            guard ContinuousClock.now < deadline else {
                client.kill()
                throw PeerError.refused("no answer within the time the commands were given")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return LogFile.read(output).split(separator: "\n").map(String.init)
    }

    private static func clientTime(_ commands: [String]) -> Duration {
        .seconds(60 + 60 * max(1, commands.count / 100))
    }

    /// The command client started on `commands`; the file its answers go to.
    private func startClient(_ commands: [String]) throws -> (ChildProcess, String) {
        let output = directory.appendingPathComponent("answers-\(UUID().uuidString).jsonl").path
        try Data(commands.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: output + ".commands"))
        let client = try ChildProcess(
            [python, repository + "/scripts/matter-server-command.py", url, output + ".commands", output],
            logFile: directory.appendingPathComponent("commands.log").path)
        return (client, output)
    }

    /// The server's own command-line answer for one command (`send` of one).
    public func send(_ command: String) throws -> String { try send([command]).first ?? "" }
}
