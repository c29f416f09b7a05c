import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import TraitBridgeMatterDevice
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// The device on a real socket, against the CHIP SDK's own Python controller
/// (`scripts/matter-controller.py` from the Matter Server's venv) run inside a network sandbox
/// (its stack speaks mDNS on every interface it has).
@Suite(
    "Matter device server and the CHIP SDK's controller", .serialized,
    .enabled(if: SDKController.unavailableReason == nil, "\(SDKController.unavailableReason ?? "")"))
struct MatterDeviceServerTests {
    static let repository = SDKController.repository
    static let python = SDKController.python

    @Test("the SDK's controller establishes PASE with the device")
    func pase() throws {
        let sandbox = try NetworkSandbox(repository: Self.repository)
        try Self.withServer(host: sandbox.hostAddress) { server, log in
            let result = try await Self.controller(in: sandbox, port: server.port ?? 0, passcode: 20_202_021)
            #expect(result.json.contains(#""established": true"#), "\(result.tail)\n\(log.all.suffix(30))")
            #expect(log.all.contains { $0.contains("PASE succeeded") }, "\(log.all.suffix(30))")
        }
    }

    @Test("a wrong passcode fails and is logged; the device still serves the right one")
    func wrongThenRight() throws {
        let sandbox = try NetworkSandbox(repository: Self.repository)
        try Self.withServer(host: sandbox.hostAddress) { server, log in
            let wrong = try await Self.controller(in: sandbox, port: server.port ?? 0, passcode: 20_202_022)
            #expect(wrong.json.contains(#""established": false"#), "\(wrong.tail)")
            let failure = log.all.first { $0.contains("PASE failed") }
            #expect(failure != nil, "\(log.all.suffix(30))")
            print("device: \(failure ?? "no PASE failure logged")")
            let right = try await Self.controller(in: sandbox, port: server.port ?? 0, passcode: 20_202_021)
            #expect(right.json.contains(#""established": true"#), "\(right.tail)\n\(log.all.suffix(30))")
        }
    }

    @Test("junk datagrams and a flood of PASE requests leave the device bounded and answering the right one")
    func hostileTraffic() throws {
        let sandbox = try NetworkSandbox(repository: Self.repository)
        try Self.withServer(host: sandbox.hostAddress) { server, log in
            let port = UInt16(server.port ?? 0)
            var generator = XorShift(seed: 52)
            // PBKDFParamRequests from 300 distinct commissioners (each wants an unsecured session), then junk;
            // in batches of 100, so the device's queue of 256 is not what drops them.
            var datagrams = (0..<300).map { Self.pbkdfParamRequest(ephemeralNodeID: 0xF100 + UInt64($0)) }
            datagrams += (0..<2000).map { index in
                (0..<(index % 1400)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
            for start in stride(from: 0, to: datagrams.count, by: 100) {
                try UDPSender.send(
                    Array(datagrams[start..<min(start + 100, datagrams.count)]), to: sandbox.hostAddress, port: port)
                try await Task.sleep(for: .milliseconds(20))
            }
            // A flood's handshake holds PASE (BUSY to others) until its unanswered exchange gives up (MRP, a
            // few seconds): the real commissioner gets in within 30 s.
            var right = ControllerResult(json: "", tail: "")
            for attempt in 0..<6 where !right.json.contains(#""established": true"#) {
                if attempt > 0 { try await Task.sleep(for: .seconds(5)) }
                right = try await Self.controller(in: sandbox, port: Int(port), passcode: 20_202_021)
            }
            #expect(right.json.contains(#""established": true"#), "\(right.tail)\n\(log.all.suffix(30))")
            #expect(log.all.contains { $0.contains("unsecured sessions are held") }, "the flood met the bound")
        }
    }

    /// A PBKDFParamRequest datagram from `ephemeralNodeID`.
    static func pbkdfParamRequest(ephemeralNodeID: UInt64) -> [UInt8] {
        let initiator = PASEInitiator(random: [UInt8](repeating: 7, count: 32), sessionID: 0x1000)
        let message = Message(
            header: MessageHeader(sessionID: 0, messageCounter: 1, sourceNodeID: ephemeralNodeID),
            protocolHeader: ProtocolHeader(
                isInitiator: true, needsAck: true, opcode: SecureChannelOpcode.pbkdfParamRequest.rawValue,
                exchangeID: 1, protocolID: .secureChannel),
            payload: initiator.pbkdfParamRequest)
        return message.encodedUnsecured
    }

    /// Runs `body` with a device on `host`, port 0, passcode 20202021, stopped by graceful shutdown;
    /// off the cooperative pool (the suite's synchronous tests may hold both of its threads longer
    /// than the SDK's controller waits for an answer, as seen under `make test`), 3 minutes at most.
    /// `exclusive`: alone among our Matter peers on this machine (``SDKController/exclusively(_:)``); a
    /// test that already holds a Matter Server (which takes the same lock) passes false.
    static func withServer(
        host: String, settings: MatterDeviceServer.Settings? = nil, endpoints: [any ApplicationEndpoint] = [],
        exclusive: Bool = true, _ body: @escaping @Sendable (MatterDeviceServer, Recorder<String>) async throws -> Void
    ) throws {
        let run = {
            try runOffThePool("matter-device-test", within: .seconds(180)) {
                try await serve(host: host, settings: settings, endpoints: endpoints, body)
            }
        }
        if exclusive { try SDKController.exclusively(run) } else { try run() }
    }

    static func serve(
        host: String, settings: MatterDeviceServer.Settings? = nil, endpoints: [any ApplicationEndpoint] = [],
        _ body: @Sendable (MatterDeviceServer, Recorder<String>) async throws -> Void
    ) async throws {
        let log = Recorder<String>()
        let logger = Logger(label: "matter-device-test") { _ in RecordingLogHandler(log) }
        var generator = SeededGenerator(seed: 3)
        let setup = try MatterSetup(
            passcode: try SetupPasscode(20_202_021), discriminator: 3840, vendorID: 0xFFF1, productID: 0x8001,
            using: &generator)
        var settings = settings ?? .init(host: host, port: 0)
        // The timer off the cooperative pool too (see runOffThePool): MRP and handshake time-outs keep their time.
        settings.timerExecutor = settings.timerExecutor ?? DedicatedExecutor(label: "matter-device-timer")
        let server = MatterDeviceServer(setup: setup, settings: settings, endpoints: endpoints, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { tasks.cancelAll() }
            for _ in 0..<100 where server.port == nil { try await Task.sleep(for: .milliseconds(50)) }
            try #require(server.port != nil, "the device did not bind within 5 s: \(log.all)")
            try await body(server, log)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(log.all.contains { $0.contains("stopped") }, "\(log.all.suffix(10))")
        // A graceful stop goes through the serving loop: ShutDown is recorded (and reported) before the socket closes.
        #expect(log.all.contains { $0.contains("shutting down: ShutDown") }, "\(log.all.suffix(10))")
    }

    /// The controller's output: its JSON line and its last 60 lines (the SDK's log says what it did not like).
    struct ControllerResult {
        var json: String
        var tail: String
    }

    static func controller(in sandbox: NetworkSandbox, port: Int, passcode: Int) async throws -> ControllerResult {
        let run = try await SDKController.run(
            [
                "--address", sandbox.hostAddress, "--port", "\(port)", "--passcode", "\(passcode)", "--timeout", "30",
                "pase",
            ], in: sandbox)
        return ControllerResult(json: run.line, tail: run.tail)
    }
}

/// Where the SDK's controller is, and why it cannot run here.
enum SDKController {
    static let repository = TestPaths(filePath: #filePath).repository
    static let python = repository + "/.build-matter/venv/bin/python"

    static var unavailableReason: String? {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "the Matter Server's venv is not installed: run scripts/install-matter-server.sh (make test does)"
        }
        return NetworkSandbox.unavailableReason(repository: repository)
    }
}

/// Keeps every line the device logs, for the tests to read.
private struct RecordingLogHandler: LogHandler {
    let recorder: Recorder<String>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    init(_ recorder: Recorder<String>) { self.recorder = recorder }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { recorder.append("\(event.level) \(event.message) \(event.metadata ?? [:])") }
}
