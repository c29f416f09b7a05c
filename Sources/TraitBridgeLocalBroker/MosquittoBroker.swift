public import Foundation
public import TraitBridgeMQTT

#if canImport(Glibc)
    import Glibc
#endif

/// A private mosquitto for `traitbridge demo` and the integration tests: on 127.0.0.1 only, on a free port, no persistence,
/// started as a real process and stopped by its PID. Nothing is mocked.
///
/// `restart()` starts it again on the same port, for broker-loss tests.
public final class MosquittoBroker: @unchecked Sendable {
    public private(set) var port: Int
    public let directory: URL
    private var process: ChildProcess?

    /// The broker's PID while it runs.
    public var pid: pid_t? { process?.pid }

    public enum BrokerError: Error, CustomStringConvertible {
        case notInstalled
        case didNotStart(String)

        public var description: String {
            switch self {
            case .notInstalled: "mosquitto is not installed: run scripts/install-deps.sh (or make deps)"
            case .didNotStart(let log): "mosquitto did not start: \(log)"
            }
        }
    }

    /// Path of the mosquitto binary, or nil when it is not installed.
    public static var executable: String? {
        ["/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Optional broker features for TLS and authentication tests.
    public struct Options: Sendable {
        /// Serve TLS (a throw-away CA and server certificate for 127.0.0.1 are made with openssl).
        public var isTLS = false
        /// Require these user names and passwords (no anonymous clients).
        public var users: [String: String] = [:]
        /// A mosquitto ACL file to enforce (copied beside the broker's config, readable by the user
        /// mosquitto drops to).
        public var aclFile: String?

        public init(isTLS: Bool = false, users: [String: String] = [:], aclFile: String? = nil) {
            self.isTLS = isTLS
            self.users = users
            self.aclFile = aclFile
        }
    }

    public let options: Options

    /// The CA certificate that signed the broker's certificate (TLS brokers only).
    public var caFile: String { directory.appendingPathComponent("ca.crt").path }

    /// Starts a broker on a free loopback port (a few attempts, in case another process takes the port first).
    public init(_ options: Options = Options()) throws {
        self.options = options
        guard Self.executable != nil else { throw BrokerError.notInstalled }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tb-mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = 0
        if options.isTLS { try makeCertificates() }
        if !options.users.isEmpty { try makePasswordFile() }
        var lastError: (any Error)?
        for _ in 0..<5 {
            port = Self.freeLoopbackPort()
            do {
                try launch()
                return
            } catch {
                lastError = error
            }
        }
        throw lastError ?? BrokerError.didNotStart("no free port")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The broker's URL with credentials.
    public static func connection(to broker: MosquittoBroker, user: String, password: String) throws -> BrokerURL {
        var url = try BrokerURL(broker.url)
        url.username = user
        url.password = password
        return url
    }

    /// `mqtt://127.0.0.1:<port>` (or `mqtts://` for a TLS broker).
    public var url: String { "\(options.isTLS ? "mqtts" : "mqtt")://127.0.0.1:\(port)" }

    /// Stops the broker (SIGTERM, then SIGKILL after 5 s).
    public func stop() {
        process?.stop()
        process = nil
    }

    /// Kills the broker at once (SIGKILL): what a crash looks like to its clients.
    public func kill9() {
        process?.kill()
        process = nil
    }

    /// Starts the broker again on the same port (retained messages are gone: persistence is off).
    public func restart() throws {
        stop()
        try launch()
    }

    private func launch() throws {
        let config = directory.appendingPathComponent("mosquitto.conf")
        let log = directory.appendingPathComponent("mosquitto.log")
        var security =
            options.users.isEmpty
            ? "allow_anonymous true\n" : "allow_anonymous false\npassword_file \(directory.path)/passwords\n"
        if let acl = options.aclFile {
            let copy = directory.appendingPathComponent("acl").path
            if !FileManager.default.fileExists(atPath: copy) {
                try FileManager.default.copyItem(atPath: acl, toPath: copy)
            }
            chmod(copy, 0o644)
            security += "acl_file \(copy)\n"
        }
        if options.isTLS {
            security +=
                "cafile \(caFile)\ncertfile \(directory.path)/server.crt\nkeyfile \(directory.path)/server.key\n"
        }
        try """
        listener \(port) 127.0.0.1
        \(security)persistence false
        max_queued_messages 100000
        set_tcp_nodelay true
        log_dest file \(log.path)
        log_type error
        log_type warning

        """.write(to: config, atomically: true, encoding: .utf8)
        let child = try ChildProcess([Self.executable!, "-c", config.path])
        process = child
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if child.reap(within: .zero) { break }
            if Self.canConnect(port: port) { return }
            usleep(20_000)
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        stop()
        throw BrokerError.didNotStart("port \(port): \(text)")
    }

    private func makeCertificates() throws {
        let dir = directory.path
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(
            toFile: dir + "/san.ext", atomically: true, encoding: .utf8)
        try Self.runTool([
            "/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/ca.key",
            "-out", dir + "/ca.crt", "-days", "1", "-subj", "/CN=TraitBridge test CA",
        ])
        try Self.runTool([
            "/usr/bin/openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/server.key",
            "-out", dir + "/server.csr", "-subj", "/CN=localhost",
        ])
        try Self.runTool([
            "/usr/bin/openssl", "x509", "-req", "-in", dir + "/server.csr", "-CA", dir + "/ca.crt", "-CAkey",
            dir + "/ca.key",
            "-CAcreateserial", "-out", dir + "/server.crt", "-days", "1", "-extfile", dir + "/san.ext",
        ])
        chmod(dir + "/server.key", 0o644)  // mosquitto drops root privileges before it reads the key
    }

    private func makePasswordFile() throws {
        let file = directory.path + "/passwords"
        for (index, (user, password)) in options.users.sorted(by: { $0.key < $1.key }).enumerated() {
            try Self.runTool(
                ["/usr/bin/mosquitto_passwd", "-b"] + (index == 0 ? ["-c"] : []) + [file, user, password])
        }
        chmod(file, 0o644)
    }

    /// Runs a tool to completion (≤ 30 s); throws when it fails.
    static func runTool(_ arguments: [String]) throws {
        let tool = try ChildProcess(arguments)
        guard tool.reap(within: .seconds(30)), tool.exitStatus == 0 else {
            tool.kill()
            throw BrokerError.didNotStart("\(arguments.joined(separator: " ")) failed")
        }
    }

    /// A port the kernel says is free on 127.0.0.1 right now.
    public static func freeLoopbackPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether a TCP connection to `host` (an IPv4 address) on `port` is accepted.
    public static func canConnect(host: String = "127.0.0.1", port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }
}
