import Foundation
import Logging
import Testing
import TraitBridgeDNSSD
import TraitBridgeLocalBroker
import TraitBridgeMatterDevice
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// The device's DNS-SD records announced through Avahi as the bridge announces them (avahi-publish,
/// over the D-Bus of an avahi-daemon inside a network sandbox), and found by the CHIP SDK's own
/// controller (`scripts/matter-controller.py`, as python-matter-server runs it) in the same sandbox.
@Suite(
    "Matter DNS-SD through Avahi and the CHIP SDK's controller", .serialized,
    .enabled(if: SDKController.mdnsUnavailableReason == nil, "\(SDKController.mdnsUnavailableReason ?? "")"))
struct MatterDiscoveryTests {

    /// The device as announced: the SDK's test vendor, a light, the notes' fabric (§7.1).
    static let advertisement = MatterAdvertisement(
        discriminator: 3840, vendorID: 0xFFF1, productID: 0x8001, deviceType: 0x0100,
        deviceName: "TraitBridge test", port: 5540, commissioningInstance: 0x0123_4567_89AB_CDEF,
        fabrics: [.init(compressedFabricID: 0x87E1_B004_E235_A130, nodeID: 0x8FC7_7724_01CD_0696)], mrp: .defaults)

    static let host = "traitbridge-matter-test.local"

    @Test("the controller finds the commissionable record by its long discriminator, at the host's address")
    func discover() async throws {
        try await Self.announced { sandbox, _ async throws in
            let found = try #require(try await Self.discover(in: sandbox).first, "nothing found")
            #expect(found["instanceName"] as? String == "0123456789ABCDEF")
            #expect(found["discriminator"] as? Int == 3840)
            #expect(found["vendorID"] as? Int == 0xFFF1)
            #expect(found["productID"] as? Int == 0x8001)
            #expect(found["commissioningMode"] as? Int == 1)
            #expect(found["deviceName"] as? String == "TraitBridge test")
            #expect(found["port"] as? Int == 5540)
            #expect((found["addresses"] as? [String] ?? []).contains(sandbox.hostAddress), "\(found)")
        }
    }

    @Test("the controller resolves the operational record from the compressed fabric id and node id")
    func resolve() async throws {
        try await Self.announced { sandbox, _ async throws in
            let addresses = try await Self.resolve(in: sandbox)
            #expect(addresses.contains { $0["ip"] as? String == sandbox.hostAddress && $0["port"] as? Int == 5540 })
        }
    }

    @Test("the window closed: the commissionable record is withdrawn, the operational one stays; stop() ends it")
    func withdrawn() async throws {
        try await Self.announced { sandbox, advertiser async throws in
            #expect(try await Self.discover(in: sandbox).count == 1, "announced at first")
            var closed = Self.advertisement
            closed.commissioningInstance = nil
            advertiser.publish(closed.services, host: Self.host, interfaces: [sandbox.hostInterface])
            #expect(try await Self.discover(in: sandbox, seconds: 8).isEmpty, "withdrawn with the window")
            #expect(!(try await Self.resolve(in: sandbox)).isEmpty, "the operational record stays")
            advertiser.stop()
            #expect(try await Self.resolve(in: sandbox, seconds: 8).isEmpty, "withdrawn by stop()")
        }
    }

    /// The commissionable nodes the controller finds with discriminator 3840 (it browses for
    /// `seconds` less 5 at most; it stops at the first answer).
    static func discover(in sandbox: NetworkSandbox, seconds: Int = 30) async throws -> [[String: Any]] {
        let run = try await SDKController.run(
            ["--discriminator", "3840", "--timeout", "\(seconds)", "discover"], in: sandbox)
        let found = try #require(run.json["found"] as? [[String: Any]], "\(run.line)\n\(run.tail)")
        return found
    }

    /// The addresses (`ip`, `port`) the controller resolves for the advertisement's fabric and node
    /// (within `seconds` less 5).
    static func resolve(in sandbox: NetworkSandbox, seconds: Int = 30) async throws -> [[String: Any]] {
        let run = try await SDKController.run(
            [
                "--compressed-fabric-id", "87E1B004E235A130", "--node-id", "0x8FC7772401CD0696",
                "--timeout", "\(seconds)", "resolve",
            ], in: sandbox)
        let addresses = try #require(run.json["addresses"] as? [[String: Any]], "\(run.line)\n\(run.tail)")
        return addresses
    }

    /// A sandbox with avahi-daemon in it, `advertisement` published on the host's side of its pair,
    /// and `body` with the advertiser; everything withdrawn and removed afterwards.
    static func announced(_ body: (NetworkSandbox, AvahiAdvertiser) async throws -> Void) async throws {
        let sandbox = try NetworkSandbox(repository: SDKController.repository)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-mdns-\(UUID().uuidString)")
        defer {
            sandbox.remove()
            try? FileManager.default.removeItem(at: folder)
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bus = try MDNSResponder.start(in: sandbox, repository: SDKController.repository, folder: folder)
        let advertiser = AvahiAdvertiser(
            label: "Matter", setting: "the test's interface", logger: Logger(label: "matter-mdns-test"),
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus])
        defer { advertiser.stop() }
        let services = advertisement.services
        #expect(services.map(\.type) == ["_matterc._udp", "_matter._tcp"])
        advertiser.publish(services, host: host, interfaces: [sandbox.hostInterface])
        try await body(sandbox, advertiser)
    }
}

extension SDKController {
    /// Runs `body` while no other Matter peer of ours runs on this machine (the Matter Server's lock):
    /// under `make test` the SDK's controllers and Matter Servers of several suites at once starved each
    /// other's time-outs on two cores. Throws when the lock is not had within ``MatterServerPeer/lockWait``.
    /// The wait blocks the calling thread: only for synchronous tests whose holders run off the
    /// cooperative pool (``MatterDeviceServerTests/withServer``), never around an async test's body.
    static func exclusively<Result>(_ body: () throws -> Result) throws -> Result {
        guard let lock = MachineLock("matter-server", waitUpTo: MatterServerPeer.lockWait) else {
            throw MatterServerPeer.PeerError.busy
        }
        defer { lock.release() }
        return try body()
    }

    /// Why the SDK's controller and an mDNS responder in a sandbox cannot run here, or nil.
    static var mdnsUnavailableReason: String? {
        unavailableReason ?? MDNSResponder.unavailableReason(repository: repository)
    }

    /// What one step of the controller printed: its JSON line (parsed, and as text), its last 60 lines.
    struct Run {
        var json: [String: Any]
        var line: String
        var tail: String
    }

    /// Runs `scripts/matter-controller.py` with `arguments` (its step last) inside `sandbox`, with a
    /// fresh storage folder; polled, not waited on (a blocked thread is one less for the device on
    /// two cores), killed after 60 s.
    static func run(_ arguments: [String], in sandbox: NetworkSandbox) async throws -> Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-ctl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("controller.log").path
        let storage = folder.appendingPathComponent("s").path
        let result = folder.appendingPathComponent("result.json").path
        let process = try ChildProcess(
            sandbox.command(
                [python, repository + "/scripts/matter-controller.py", "--storage", storage, "--result", result]
                    + arguments),
            logFile: output)
        defer { process.kill() }
        for _ in 0..<600 where !process.reap(within: .zero) { try await Task.sleep(for: .milliseconds(100)) }
        let lines = LogFile.read(output).split(separator: "\n", omittingEmptySubsequences: true)
        // The result's own file: the SDK's logging shares stdout and once spliced its prefix into the printed line.
        let written = LogFile.read(result)
        let line = written.isEmpty ? lines.last { $0.hasPrefix(#"{"step""#) }.map(String.init) ?? "" : written
        // One line in the test's output: what the SDK's controller concluded.
        print("matter-controller.py \(arguments.last ?? ""): \(line)")
        let json = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        return Run(json: json, line: line, tail: lines.suffix(60).joined(separator: "\n"))
    }
}
