public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private mosquitto for integration tests: on 127.0.0.1 only, on a free port, no persistence,
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
        ["/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts a broker on a free loopback port (a few attempts, in case another process takes the port first).
    public init() throws {
        guard Self.executable != nil else { throw BrokerError.notInstalled }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tb-mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = 0
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

    /// `mqtt://127.0.0.1:<port>`.
    public var url: String { "mqtt://127.0.0.1:\(port)" }

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
        try """
            listener \(port) 127.0.0.1
            allow_anonymous true
            persistence false
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

    static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
