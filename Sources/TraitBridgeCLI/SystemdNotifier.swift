import Foundation
import ServiceLifecycle
import TraitBridgeEngine

#if canImport(Glibc)
    import Glibc
#endif

/// systemd's notify protocol for `Type=notify` (sd_notify without libsystemd): `READY=1` once the
/// bridge is ready (broker connected), `STATUS=` with what it waits for, and `WATCHDOG=1` at half
/// the interval systemd asks for (`WATCHDOG_USEC`) while the bridge's timer runs. Does nothing
/// when `NOTIFY_SOCKET` is not set (not started by systemd).
struct SystemdNotifier: Service {
    let bridge: Bridge
    let socketPath: String
    let watchdogInterval: Duration?

    /// `nil` without `NOTIFY_SOCKET`.
    init?(bridge: Bridge, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty, path.utf8.count < 108 else { return nil }
        self.bridge = bridge
        self.socketPath = path
        let microseconds = environment["WATCHDOG_USEC"].flatMap { Int64($0) }.flatMap { $0 > 0 ? $0 : nil }
        self.watchdogInterval = microseconds.map { .microseconds($0 / 2) }
    }

    func run() async throws {
        send("STATUS=connecting to the broker")
        var isReady = false
        var lastWatchdog = ContinuousClock.now
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if !isReady, bridge.snapshot.facts(countingDevices: false).broker == .up {
                isReady = true
                send("READY=1\nSTATUS=ready: broker connected")
            }
            if let interval = watchdogInterval, ContinuousClock.now - lastWatchdog >= interval, bridge.isRunning {
                send("WATCHDOG=1")
                lastWatchdog = .now
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        send("STOPPING=1")
    }

    /// One datagram to the socket (an abstract one when the path starts with `@`).
    func send(_ text: String) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(socketPath.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in bytes.enumerated() where index < path.count { path[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        _ = text.withCString { message in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, message, strlen(message), Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
    }
}
