public import Foundation
import Logging
import NIOWebSocket
import Synchronization
import WSClient

/// A real Open Home Foundation Matter Server (python-matter-server, installed by
/// `scripts/install-matter-server.sh` into `.build-matter/venv`) on a free loopback port, with
/// its own storage folder, stopped by PID: for the tests, the simulator and the demo.
/// Node dumps are loaded with its `import_test_node` command (Home Assistant's diagnostics shape).
public final class MatterServerPeer: @unchecked Sendable {
    public let port: Int
    public let directory: URL
    private var process: ChildProcess?

    public enum PeerError: Error, CustomStringConvertible {
        case notInstalled(String)
        case didNotStart(String)
        case refused(String)

        public var description: String {
            switch self {
            case .notInstalled(let path):
                "the Matter Server is not installed at \(path): run scripts/install-matter-server.sh"
            case .didNotStart(let log): "the Matter Server did not start within 60 s; its log: \(log)"
            case .refused(let answer): "the Matter Server refused: \(answer)"
            }
        }
    }

    /// `<repository>/.build-matter/venv/bin/matter-server`, when it is installed.
    public static func executable(repository: String) -> String? {
        let path = repository + "/.build-matter/venv/bin/matter-server"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Starts the server and waits (≤ 60 s) until its WebSocket port answers. `paaDirectory`: the
    /// PAA roots it trusts (a ``MatterLightPeer``'s); without it, an empty folder it never fills
    /// from the network (marked fresh), so it starts offline.
    public init(repository: String, paaDirectory: String? = nil) throws {
        guard let executable = Self.executable(repository: repository) else {
            throw PeerError.notInstalled(repository + "/.build-matter/venv/bin/matter-server")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tb-matter-\(UUID().uuidString)")
        let certificates = paaDirectory.map { URL(fileURLWithPath: $0) } ?? directory.appendingPathComponent("paa")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: certificates, withIntermediateDirectories: true)
        let marker = certificates.appendingPathComponent(".version")
        if !FileManager.default.fileExists(atPath: marker.path) { try Data("1".utf8).write(to: marker) }
        port = MosquittoBroker.freeLoopbackPort()
        let log = directory.appendingPathComponent("server.log").path
        process = try ChildProcess(
            [
                executable, "--storage-path", directory.appendingPathComponent("storage").path, "--port", "\(port)",
                "--listen-address", "127.0.0.1", "--paa-root-cert-dir", certificates.path, "--log-level", "warning",
            ], logFile: log)
        let deadline = ContinuousClock.now + .seconds(60)
        while !MosquittoBroker.canConnect(port: port) {
            guard ContinuousClock.now < deadline, process?.isRunning == true else {
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

    public var url: String { "ws://127.0.0.1:\(port)/ws" }
    public var pid: pid_t? { process?.pid }

    /// Stops the server (SIGTERM, then SIGKILL after 5 s).
    public func stop() {
        process?.stop()
        process = nil
    }

    /// Loads node dumps (each a node object's JSON text, as in `../shared/corpus/matter/nodes`);
    /// the server numbers them from 900000 in the order given.
    public func importNodes(_ nodes: [String]) async throws {
        for node in nodes {
            let dump = #"{"data":{"node":\#(node)}}"#
            let escaped = String(
                data: try JSONSerialization.data(withJSONObject: [dump], options: []), encoding: .utf8)!
            let argument = escaped.dropFirst().dropLast()  // the JSON string literal of the dump
            let answer = try await send(
                #"{"message_id":"import","command":"import_test_node","args":{"dump":\#(argument)}}"#)
            guard answer.contains(#""result""#) else { throw PeerError.refused(String(answer.prefix(500))) }
        }
    }

    /// Commissions a device on loopback (`commission_on_network` with its passcode and 127.0.0.1);
    /// the server's answer (the node, or an error).
    public func commission(passcode: Int) async throws -> String {
        try await send(
            #"{"message_id":"commission","command":"commission_on_network","#
                + #""args":{"setup_pin_code":\#(passcode),"ip_addr":"127.0.0.1"}}"#)
    }

    /// Sends one command (a JSON text with `"message_id"`) on a connection of its own and returns
    /// the server's answer to it (the first message that carries a `result` or an `error_code`).
    public func send(_ command: String) async throws -> String {
        let answer = Mutex<String?>(nil)
        var logger = Logger(label: "matter-server-peer")
        logger.logLevel = .critical
        let configuration = WebSocketClientConfiguration(maxFrameSize: 64 << 20)
        try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
            inbound, outbound, _ in
            try await outbound.write(.text(command))
            for try await message in inbound.messages(maxSize: 64 << 20) {
                guard case .text(let text) = message else { continue }
                if text.contains(#""result""#) || text.contains(#""error_code""#) {
                    answer.withLock { $0 = text }
                    break
                }
            }
            try await outbound.close(.normalClosure, reason: nil)
        }
        return answer.withLock { $0 } ?? ""
    }
}
