import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// `serve` under systemd's `Type=notify`: a datagram socket stands in for systemd (`NOTIFY_SOCKET`)
/// and records what `serve` says: READY=1 once the broker is connected, WATCHDOG=1 at half of
/// `WATCHDOG_USEC`, STOPPING=1 on SIGTERM.
@Suite("serve and systemd's notify protocol", .serialized)
struct SystemdNotifyTests {
    @Test("READY=1 after the broker connects, WATCHDOG=1 while it runs, STOPPING=1 on SIGTERM")
    func notify() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-notify-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let socketPath = folder + "/notify.sock"
        let received = folder + "/received"
        // systemd's side: every datagram, one per line (newlines inside shown as |), for 60 s at most.
        let listener = try ChildProcess([
            "/usr/bin/python3", "-c",
            """
            import socket, sys, time
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.bind(sys.argv[1]); s.settimeout(0.5)
            end = time.time() + 60
            with open(sys.argv[2], "a", buffering=1) as out:
                while time.time() < end:
                    try: out.write(s.recv(4096).decode().replace("\\n", "|") + "\\n")
                    except socket.timeout: pass
            """, socketPath, received,
        ])
        defer { listener.stop() }
        #expect(eventually { FileManager.default.fileExists(atPath: socketPath) }, "the listener is bound")
        let broker = try MosquittoBroker()
        let serve = try BridgeProcess(
            ["serve", "--broker", broker.url, "--data-dir", folder + "/data", "--log-level", "warning"],
            log: folder + "/serve.log", environment: ["NOTIFY_SOCKET": socketPath, "WATCHDOG_USEC": "400000"])
        func lines() -> [String] {
            WatchCommandTests.read(received).split(separator: "\n").map(String.init)
        }
        #expect(eventually(timeout: .seconds(20)) { lines().contains { $0.hasPrefix("READY=1") } }, "\(lines())")
        #expect(lines().first?.hasPrefix("STATUS=connecting") == true, "it says what it waits for: \(lines())")
        #expect(
            eventually(timeout: .seconds(10)) { lines().filter { $0 == "WATCHDOG=1" }.count >= 2 },
            "the watchdog is fed every 0.2 s: \(lines())")
        #expect(serve.signal(SIGTERM, waitUpTo: .seconds(10)))
        #expect(eventually { lines().contains("STOPPING=1") }, "\(lines())")
    }
}
