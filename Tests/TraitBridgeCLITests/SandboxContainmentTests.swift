import Foundation
import Testing
import TraitBridgeTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The Matter Server's CHIP stack and the software light's zeroconf speak mDNS on every interface
/// they have. They run inside a network sandbox (`scripts/sandbox.sh`), so nothing of theirs may
/// leave by the machine's own interfaces: tcpdump listens there for what they would send (outbound
/// mDNS and Matter's UDP port; a Matter Server outside a sandbox sends about 20 such packets on
/// eth0 in its first 15 s, seen with this filter) and on the sandbox's end of the veth pair, where
/// their mDNS must show up (so the capture demonstrably works and the peers did speak) while the
/// light is commissioned. Other Matter suites running beside this one are covered by the same capture.
/// IGMP and MLD are left out: the kernel answers a router's queries for its own groups on its own.
@Suite(
    "Network sandbox containment", .serialized,
    .enabled(
        if: MatterServerPeer.unavailableReason(repository: CommandRunner.repository) == nil,
        "\(MatterServerPeer.unavailableReason(repository: CommandRunner.repository) ?? "")"),
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: PacketCapture.tcpdump),
        "tcpdump is not installed (scripts/install-deps.sh installs it)"))
struct SandboxContainmentTests {
    @Test("mDNS of the Matter Server and the light reaches the sandbox's veth pair, never the machine's interfaces")
    func nothingLeaves() throws {
        let machine = PacketCapture.machineInterfaces()
        try #require(!machine.isEmpty, "this machine has an interface that is up besides lo")
        let sandbox = try NetworkSandbox(repository: CommandRunner.repository)
        defer { sandbox.remove() }
        let outward = "udp port 5353 or udp port 5540"
        let captures = try machine.map { try PacketCapture(interface: $0, direction: "out", filter: outward) }
        let pair = try PacketCapture(interface: sandbox.hostInterface, direction: "in", filter: "udp port 5353")

        let (light, server, commissioned) = try MatterLiveDeviceTests.commissionedLight(in: sandbox)
        defer {
            light.stop()
            server.stop()
        }
        #expect(commissioned.contains("node_id"), "\(commissioned.prefix(400))")
        // The peers' mDNS arrives on the pair (bounded wait), then a little longer for stragglers.
        #expect(
            eventually(timeout: .seconds(20)) { pair.packets.count > 0 }, "no mDNS seen on \(sandbox.hostInterface)")
        usleep(2_000_000)
        light.stop()
        server.stop()

        pair.stop()
        #expect(pair.packets.contains { $0.contains("5353") }, "\(pair.packets.prefix(5))")
        for capture in captures {
            capture.stop()
            #expect(
                capture.packets.isEmpty,
                "sent on \(capture.interface) while the peers ran: \(capture.packets.prefix(10))"
            )
        }
    }
}

/// tcpdump on one interface, its packets as text lines (one per packet), stopped by PID.
final class PacketCapture {
    static let tcpdump = "/usr/bin/tcpdump"
    let interface: String
    private let log: String
    private let process: ChildProcess

    /// Starts it and waits (≤ 10 s) until tcpdump says it listens.
    init(interface: String, direction: String, filter: String) throws {
        self.interface = interface
        log = FileManager.default.temporaryDirectory.appendingPathComponent("tb-capture-\(UUID().uuidString)").path
        process = try ChildProcess(
            [Self.tcpdump, "-i", interface, "-Q", direction, "-n", "-l", "-q", filter], logFile: log)
        let listening = eventually(timeout: .seconds(10)) { LogFile.read(self.log).contains("listening on") }
        if !listening {
            process.kill()
            throw CaptureError(text: "tcpdump on \(interface) did not start: \(LogFile.read(log).suffix(500))")
        }
    }

    struct CaptureError: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }

    deinit {
        process.kill()
        unlink(log)
    }

    /// The packets so far: tcpdump's lines that start with a time stamp.
    var packets: [String] {
        LogFile.read(log).split(separator: "\n").map(String.init).filter {
            $0.first?.isNumber == true && $0.contains(" > ")
        }
    }

    /// SIGINT (tcpdump flushes what it has), then SIGKILL after 5 s.
    func stop() {
        if !process.signal(SIGINT) { process.kill() }
    }

    /// The machine's own interfaces that are up: not lo, not a sandbox's pair (`tbsb…`).
    static func machineInterfaces() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/net")) ?? []
        return names.sorted().filter { name in
            guard name != "lo", !name.hasPrefix("tbsb") else { return false }
            let state = LogFile.read("/sys/class/net/\(name)/operstate").trimmingCharacters(in: .whitespacesAndNewlines)
            return state == "up" || state == "unknown"
        }
    }
}
