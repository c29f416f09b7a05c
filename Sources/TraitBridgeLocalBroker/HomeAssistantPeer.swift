public import Foundation
import Synchronization
import TraitBridgeMQTT

#if canImport(Glibc)
    import Glibc
#endif

/// A real Home Assistant Core (homeassistant 2025.4.4, installed by `scripts/install-home-assistant.sh` into
/// `.build-homeassistant/venv`) on a free loopback port, with its MQTT integration connected to a private broker on
/// 127.0.0.1: for the tests of what Home Assistant makes of TraitBridge's MQTT discovery messages.
///
/// Its config folder is a fresh temporary one, prepared by `scripts/ha-test-prepare.py` (loopback http, onboarding
/// done, the MQTT entry, an admin's long-lived token); it runs under `scripts/ha-run.py`, which refuses any network
/// access that is not loopback and logs each refusal (``refusals``). Stopped by PID. The REST helpers are blocking
/// HTTP/1.1 calls on loopback with the token (design-53 §3).
public final class HomeAssistantPeer: @unchecked Sendable {
    /// Home Assistant's http port on 127.0.0.1.
    public let httpPort: Int
    /// The broker's port on 127.0.0.1 that Home Assistant's MQTT client connects to.
    public let mqttPort: Int
    /// The config folder (removed with the peer).
    public let directory: URL
    /// The long-lived access token of the test's admin user (`Authorization: Bearer`).
    public private(set) var token = ""
    /// From the start of Home Assistant to RUNNING with its MQTT client connected (preparation not included).
    public private(set) var startTime = Duration.zero
    /// How long the config folder's preparation took (a Python helper that imports Home Assistant).
    public private(set) var prepareTime = Duration.zero
    private let repository: String
    private let process = Mutex<ChildProcess?>(nil)
    private var python: String { repository + "/.build-homeassistant/venv/bin/python" }
    private var logPath: String { directory.appendingPathComponent("ha-run.log").path }

    /// How long a start may take once Home Assistant is spawned (≈ 10 s measured, more under load).
    public static let startLimit = Duration.seconds(90)
    /// What `scripts/ha-run.py` refuses at every start of homeassistant 2025.4.4: the `network` integration's UDP
    /// `connect`s that look for the machine's source address (no packet is sent; it falls back to loopback).
    public static let expectedRefusals: Set<String> = ["connect to 8.8.8.8:1", "connect to 224.0.0.251:1"]

    /// Why a ``HomeAssistantPeer`` failed; the description says what to do, with the end of Home Assistant's log.
    public enum PeerError: Error, CustomStringConvertible {
        case notInstalled
        case prepareFailed(String)
        case didNotStart(String, log: String)
        case requestFailed(String, log: String)

        public var description: String {
            switch self {
            case .notInstalled: HomeAssistantPeer.notInstalled
            case .prepareFailed(let output):
                "scripts/ha-test-prepare.py failed (run scripts/install-home-assistant.sh again if the venv is"
                    + " broken); its output: \(output.suffix(2000))"
            case .didNotStart(let reason, let log):
                "Home Assistant did not start: \(reason) (is the machine overloaded, or the venv broken? run"
                    + " scripts/install-home-assistant.sh); the end of its log:\n\(log.suffix(3000))"
            case .requestFailed(let reason, let log):
                "Home Assistant's REST API: \(reason); the end of its log:\n\(log.suffix(3000))"
            }
        }
    }

    private static let notInstalled =
        "Home Assistant is not installed: run scripts/install-home-assistant.sh (make test does)"

    /// Why no Home Assistant can run here (not installed), or nil.
    public static func unavailableReason(repository: String) -> String? {
        let venv = repository + "/.build-homeassistant/venv"
        let installed =
            FileManager.default.isExecutableFile(atPath: venv + "/bin/python")
            && FileManager.default.fileExists(atPath: venv + "/.traitbridge-version")
            && FileManager.default.fileExists(atPath: repository + "/scripts/ha-run.py")
        return installed ? nil : notInstalled
    }

    /// Prepares a config folder and starts Home Assistant against the broker on 127.0.0.1:`mqttPort` (which must
    /// run already); returns once its API says RUNNING and its MQTT client has published its birth message
    /// (`homeassistant/status` = `online`), at most ``startLimit`` after the spawn.
    public init(repository: String, mqttPort: Int) throws {
        guard Self.unavailableReason(repository: repository) == nil else { throw PeerError.notInstalled }
        self.repository = repository
        self.mqttPort = mqttPort
        httpPort = MosquittoBroker.freeLoopbackPort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tb-homeassistant-\(UUID())")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try prepare()
            try start()
        } catch {
            stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Home Assistant's PID while it runs.
    public var pid: pid_t? { process.withLock { $0?.pid } }

    /// Stops Home Assistant (SIGTERM, SIGKILL after 3 s), by PID; again does nothing. The folder stays until deinit.
    public func stop() {
        guard let child = process.withLock({ $0.take() }) else { return }
        if !child.signal(SIGTERM, waitUpTo: .seconds(3)) { child.kill() }
    }

    /// Home Assistant's stdout and stderr so far (its log and ha-run.py's refusals), for failure messages.
    public var log: String { LogFile.read(logPath) }

    /// What `scripts/ha-run.py` refused so far, each once (e.g. `connect to 8.8.8.8:1`).
    public var refusals: Set<String> {
        let prefix = "ha-run: refused "
        return Set(
            log.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
    }

    /// Refusals other than ``expectedRefusals``: a network access Home Assistant did not make before.
    public var unexpectedRefusals: Set<String> { refusals.subtracting(Self.expectedRefusals) }

    // MARK: Start

    private func prepare() throws {
        let output = directory.appendingPathComponent("prepare.log").path
        let started = ContinuousClock.now
        let helper = try ChildProcess(
            [
                python, repository + "/scripts/ha-test-prepare.py", directory.appendingPathComponent("config").path,
                "\(httpPort)", "\(mqttPort)",
            ], logFile: output)
        guard helper.reap(within: .seconds(120)) else {
            helper.kill()
            throw PeerError.prepareFailed("no end within 120 s. " + LogFile.read(output))
        }
        prepareTime = ContinuousClock.now - started
        let text = LogFile.read(output)
        // stdout and stderr share the file: the token is the line that is a JWT (three base64url parts).
        let jwt = text.split(separator: "\n").last { line in
            let parts = line.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 3
                && parts.allSatisfy { part in
                    !part.isEmpty && part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
                }
        }
        guard helper.exitStatus == 0, let jwt else {
            throw PeerError.prepareFailed("exit status \(helper.exitStatus.map(String.init) ?? "?"). " + text)
        }
        token = String(jwt)
    }

    private func start() throws {
        // A client of our own hears the birth message: subscribed (and that confirmed by an echo) before the start.
        let birth = BirthWatch()
        let echo = "traitbridge-test/homeassistant-peer/\(UUID())"
        let watcher = try MQTTClient(
            configuration: MQTTClientConfiguration(broker: try BrokerURL("mqtt://127.0.0.1:\(mqttPort)")),
            onMessage: { message in birth.note(message.topic, message.payloadText, echo: echo) })
        defer { watcher.stop() }
        watcher.subscribe("homeassistant/status", qos: 1)
        watcher.subscribe(echo, qos: 1)
        watcher.start()
        let ready = ContinuousClock.now + .seconds(10)
        while !birth.heardEcho.load(ordering: .acquiring) {
            guard ContinuousClock.now < ready else {
                throw PeerError.didNotStart(
                    "no MQTT broker answers on 127.0.0.1:\(mqttPort) (start one first: MosquittoBroker)", log: "")
            }
            if watcher.isConnected { _ = try? watcher.publish(echo, text: "1", qos: 1) }
            usleep(100_000)
        }

        let started = ContinuousClock.now
        let config = directory.appendingPathComponent("config").path
        let child = try ChildProcess(
            [python, repository + "/scripts/ha-run.py", "-c", config, "--skip-pip"], logFile: logPath)
        process.withLock { $0 = child }
        let deadline = started + Self.startLimit
        var waitingFor = "its API to answer (GET /api/ 200)"
        var step = 0
        while true {
            if !child.isRunning {
                let status = child.exitStatus.map(String.init) ?? "?"
                throw PeerError.didNotStart("it exited (status \(status)) while waiting for \(waitingFor)", log: log)
            }
            guard ContinuousClock.now < deadline else {
                throw PeerError.didNotStart("no \(waitingFor) within \(Self.startLimit)", log: log)
            }
            switch step {
            case 0 where (try? get("/api/").status) == 200:
                step = 1
                waitingFor = "state RUNNING (GET /api/config)"
                continue
            case 1 where (try? get("/api/config"))?.json?["state"] as? String == "RUNNING":
                step = 2
                waitingFor = "its MQTT client's birth message (homeassistant/status online)"
                continue
            case 2 where birth.heardBirth.load(ordering: .acquiring):
                startTime = ContinuousClock.now - started
                return
            default: usleep(200_000)
            }
        }
    }

    /// Set from the watcher's network thread, read by the starting thread.
    private final class BirthWatch: Sendable {
        let heardEcho = Atomic<Bool>(false)
        let heardBirth = Atomic<Bool>(false)

        func note(_ topic: String, _ payload: String, echo: String) {
            if topic == echo { heardEcho.store(true, ordering: .releasing) }
            if topic == "homeassistant/status" && payload == "online" { heardBirth.store(true, ordering: .releasing) }
        }
    }

    // MARK: REST

    /// One entity's state as `GET /api/states` gives it.
    public struct EntityState: Decodable, Sendable, Equatable {
        public var entityID: String
        public var state: String
        public var attributes: [String: JSONValue]

        enum CodingKeys: String, CodingKey {
            case entityID = "entity_id"
            case state, attributes
        }
    }

    /// A JSON value as Home Assistant sent it (an attribute).
    public enum JSONValue: Decodable, Sendable, Equatable, CustomStringConvertible {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONValue])
        case object([String: JSONValue])

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([JSONValue].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: JSONValue].self))
            }
        }

        public var string: String? { if case .string(let value) = self { value } else { nil } }
        public var number: Double? { if case .number(let value) = self { value } else { nil } }

        public var description: String {
            switch self {
            case .null: "null"
            case .bool(let value): "\(value)"
            case .number(let value): "\(value)"
            case .string(let value): value
            case .array(let values): "[" + values.map(\.description).joined(separator: ",") + "]"
            case .object(let members):
                "{" + members.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",") + "}"
            }
        }
    }

    /// Every entity's state (`GET /api/states`).
    public func states() throws -> [EntityState] {
        try decode([EntityState].self, from: try expect(get("/api/states"), "GET /api/states"))
    }

    /// One entity's state (`GET /api/states/<id>`), or nil when Home Assistant has no such entity (404).
    public func state(_ entityID: String) throws -> EntityState? {
        let answer = try get("/api/states/" + entityID)
        if answer.status == 404 { return nil }
        return try decode(EntityState.self, from: try expect(answer, "GET /api/states/\(entityID)"))
    }

    /// Calls a service (`POST /api/services/<domain>/<service>`, e.g. `light`, `turn_off`, `["entity_id": …]`);
    /// the states it changed.
    @discardableResult
    public func callService(domain: String, service: String, data: [String: Any] = [:]) throws -> [EntityState] {
        let path = "/api/services/\(domain)/\(service)"
        let body = try JSONSerialization.data(withJSONObject: data)
        return try decode([EntityState].self, from: try expect(request("POST", path, body: body), "POST \(path)"))
    }

    /// Renders a template in Home Assistant (`POST /api/template`), e.g. `{{ device_attr('light.x', 'name') }}`.
    public func renderTemplate(_ template: String) throws -> String {
        let body = try JSONSerialization.data(withJSONObject: ["template": template])
        return String(
            decoding: try expect(request("POST", "/api/template", body: body), "POST /api/template"), as: UTF8.self)
    }

    private struct Answer {
        var status: Int
        var body: Data
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    }

    private func get(_ path: String) throws -> Answer { try request("GET", path) }

    private func expect(_ answer: Answer, _ what: String) throws -> Data {
        guard (200..<300).contains(answer.status) else {
            let text = String(decoding: answer.body.prefix(1000), as: UTF8.self)
            throw PeerError.requestFailed("\(what) answered \(answer.status): \(text)", log: log)
        }
        return answer.body
    }

    private func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            let text = String(decoding: data.prefix(1000), as: UTF8.self)
            throw PeerError.requestFailed("an answer that is not \(type): \(error); \(text)", log: log)
        }
    }

    /// One HTTP/1.1 exchange on 127.0.0.1 (`Connection: close`, read to the end), ≤ 15 s. A plain socket: this
    /// module has no HTTP client, and FoundationNetworking would bring libcurl (and its leaks under ASan) along.
    private func request(_ method: String, _ path: String, body: Data? = nil) throws -> Answer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PeerError.requestFailed("socket: \(String(cString: strerror(errno)))", log: "") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(httpPort).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            throw PeerError.requestFailed("\(method) \(path): \(String(cString: strerror(errno)))", log: "")
        }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(httpPort)\r\nAuthorization: Bearer \(token)\r\n"
        head += "Connection: close\r\nContent-Length: \(body?.count ?? 0)\r\n"
        head += (body == nil ? "" : "Content-Type: application/json\r\n") + "\r\n"
        var bytes = Array(head.utf8) + Array(body ?? Data())
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw PeerError.requestFailed("\(method) \(path): could not send", log: "") }
            sent += count
        }
        bytes = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < 64 << 20 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { throw PeerError.requestFailed("\(method) \(path): no answer within 15 s", log: "") }
            bytes += chunk[..<count]
        }
        return try Self.parse(bytes, what: "\(method) \(path)")
    }

    /// Status and body of a whole HTTP/1.1 response (a chunked body is joined).
    private static func parse(_ bytes: [UInt8], what: String) throws -> Answer {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
            throw PeerError.requestFailed("\(what): an incomplete answer (\(bytes.count) bytes)", log: "")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        var body = Array(bytes[(end + 4)...])
        let isChunked = lines.dropFirst().contains {
            $0.lowercased().hasPrefix("transfer-encoding:") && $0.lowercased().contains("chunked")
        }
        if isChunked {
            var joined: [UInt8] = []
            var rest = body[...]
            while let lineEnd = rest.indices.first(where: { rest[$0...].starts(with: [13, 10]) }),
                let size = String(decoding: rest[..<lineEnd], as: UTF8.self).split(separator: ";").first
                    .flatMap({ Int($0.trimmingCharacters(in: .whitespaces), radix: 16) }),
                size > 0, lineEnd + 2 + size <= rest.endIndex
            {
                joined += rest[(lineEnd + 2)..<(lineEnd + 2 + size)]
                rest = rest[min(rest.endIndex, lineEnd + 2 + size + 2)...]
            }
            body = joined
        }
        return Answer(status: status, body: Data(body))
    }
}
