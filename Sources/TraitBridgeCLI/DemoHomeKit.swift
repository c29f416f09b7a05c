import Foundation
import Logging
import TraitBridgeEngine
import TraitBridgeHomeKit
import TraitBridgeLocalBroker

/// The demo as a HomeKit bridge: announced by mDNS only inside a network sandbox (Avahi there, never
/// on the machine's own network), then paired and driven by a real controller, aiohomekit, in the
/// same sandbox, as an iPhone on the LAN would: the lights, the lock and the blinds.
final class DemoHomeKit {
    let homeKit: HomeKitBridge
    private let service: DemoService
    private let sandbox: NetworkSandbox
    private let ownsSandbox: Bool
    private let repository: String
    private let work: URL

    /// The checkout whose `.build-homekit` holds aiohomekit (as for the camera's peers).
    static var repository: String { DemoCamera.checkout(holding: ".build-homekit") }

    /// Starts the bridge, says how to pair, and pairs aiohomekit to set the demo's devices.
    static func run(
        bridge: Bridge, settings: ServeConfiguration, sandbox: NetworkSandbox?, work: URL, logger: Logger,
        say: (String) -> Void
    ) -> DemoHomeKit? {
        let style = TerminalStyle.standardError
        style.progress("HomeKit: announcing the bridge in a network sandbox, pairing aiohomekit there…")
        let demo = start(bridge: bridge, settings: settings, sandbox: sandbox, work: work, logger: logger) {
            style.endProgress()
            say($0)
        }
        let lines = demo.map { $0.summary + $0.control(writes) } ?? []
        style.endProgress()
        for line in lines { say(line) }
        return demo
    }

    /// Starts the HomeKit bridge in `shared` (or a sandbox of its own); nil, with the reason said,
    /// when the peers are not installed or no sandbox can be made.
    static func start(
        bridge: Bridge, settings: ServeConfiguration, sandbox shared: NetworkSandbox?, work: URL, logger: Logger,
        say: (String) -> Void
    ) -> DemoHomeKit? {
        let repository = repository
        guard FileManager.default.isExecutableFile(atPath: repository + "/.build-homekit/venv/bin/python") else {
            say(
                "== HomeKit: aiohomekit is not installed (scripts/install-homekit-peers.sh): "
                    + "the demo goes on without it"
            )
            return nil
        }
        if shared == nil, let reason = NetworkSandbox.unavailableReason(repository: repository) {
            say("== HomeKit: not announced (\(reason))")
            return nil
        }
        do {
            let sandbox = try shared ?? NetworkSandbox(repository: repository)
            let folder = work.appendingPathComponent("homekit")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            setenv(
                "DBUS_SYSTEM_BUS_ADDRESS",
                try MDNSResponder.start(in: sandbox, repository: repository, folder: folder), 1)
            var options = HomeKitBridge.Settings()
            options.name = "TraitBridge Demo"
            options.listen = sandbox.hostAddress
            options.port = 0
            options.mdnsInterfaces = [sandbox.hostInterface]
            let bridges = try ServeCommand.makeHomeKit(options, settings: settings, bridge: bridge, logger: logger)
            let homeKit = bridges.primary
            let demo = DemoHomeKit(
                homeKit: homeKit, service: DemoService(bridges, logger: logger), sandbox: sandbox,
                ownsSandbox: shared == nil, repository: repository, work: folder)
            let deadline = ContinuousClock.now + .seconds(10)
            while homeKit.port == nil, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
            return demo
        } catch {
            say("== HomeKit: did not start: \(error)")
            return nil
        }
    }

    private init(
        homeKit: HomeKitBridge, service: DemoService, sandbox: NetworkSandbox, ownsSandbox: Bool, repository: String,
        work: URL
    ) {
        self.homeKit = homeKit
        self.service = service
        self.sandbox = sandbox
        self.ownsSandbox = ownsSandbox
        self.repository = repository
        self.work = work
    }

    /// What a user needs to pair: the setup code, the QR payload, where it is announced.
    var summary: [String] {
        let identity = homeKit.identity
        return [
            "== HomeKit: \"TraitBridge Demo\" (id \(identity.pairingID)) on "
                + "\(sandbox.hostAddress):\(homeKit.port ?? 0),"
                + " announced by mDNS in \(sandbox.name) only",
            "     setup code \(identity.setupCode)   QR payload \(homeKit.qrPayload)",
        ]
    }

    /// aiohomekit in the sandbox finds the bridge, pairs, and sets each named device (accessory
    /// name → [HAP type, value]); then it removes its pairing, so the bridge waits for a controller again.
    func control(_ writes: [(name: String, type: String, value: Int)]) -> [String] {
        let controller: HomeKitController
        do {
            controller = try HomeKitController(
                in: sandbox, python: repository + "/.build-homekit/venv/bin/python",
                script: repository + "/scripts/homekit-controller.py",
                log: work.appendingPathComponent("controller.log").path)
        } catch {
            return ["   \(error)"]
        }
        defer { controller.stop() }
        let identity = homeKit.identity
        let paired = controller.send(["op": "pair", "id": identity.pairingID, "code": identity.setupCode])
        guard paired?["ok"] as? Bool == true else { return ["   aiohomekit could not pair: \(paired ?? [:])"] }
        let seconds = String(format: "%.1f", paired?["seconds"] as? Double ?? 0)
        let list = controller.send(["op": "accessories"])?["accessories"] as? [[String: Any]] ?? []
        var lines = [
            "   aiohomekit (in the sandbox) found it by mDNS, paired in \(seconds) s: \(list.count) accessories"
        ]
        for write in writes {
            guard let (aid, iid) = Self.find(write.name, type: write.type, in: list) else {
                lines.append("   \(write.name): no characteristic \(write.type)")
                continue
            }
            let put = controller.send(["op": "put", "values": [[aid, iid, write.value]]])
            let statuses = put?["statuses"] as? [String: Any] ?? [:]
            let status = statuses.isEmpty ? "confirmed by the device" : "\(statuses)"
            lines.append("   \(write.name): \(Self.names[write.type] ?? write.type) = \(write.value): \(status)")
        }
        let removed = controller.send(["op": "unpair"])?["ok"] as? Bool == true
        lines.append(removed ? "   aiohomekit removed its pairing: the bridge waits for a controller again" : "")
        return lines.filter { !$0.isEmpty }
    }

    /// What the demo's controller does: a light on and dimmed, the lock open, the blinds at 40 %.
    static let writes: [(name: String, type: String, value: Int)] = [
        ("Desk lamp", "25", 1), ("Desk lamp", "8", 80), ("Front door lock", "1E", 0),
        ("Living room blinds", "7C", 40),
    ]

    static let names = ["25": "On", "1E": "LockTargetState", "7C": "TargetPosition", "8": "Brightness"]

    /// The (aid, iid) of characteristic `type` of the accessory named `name`.
    static func find(_ name: String, type: String, in list: [[String: Any]]) -> (Int, Int)? {
        let long = String(repeating: "0", count: 8 - type.count) + type + "-0000-1000-8000-0026BB765291"
        for accessory in list {
            let items = (accessory["services"] as? [[String: Any]] ?? []).flatMap {
                $0["characteristics"] as? [[String: Any]] ?? []
            }
            guard
                items.contains(where: {
                    $0["type"] as? String == "00000023-0000-1000-8000-0026BB765291"
                        && $0["value"] as? String == name
                }),
                let aid = accessory["aid"] as? Int,
                let iid = items.first(where: { $0["type"] as? String == long })?["iid"]
                    as? Int
            else { continue }
            return (aid, iid)
        }
        return nil
    }

    func stop() {
        service.stop()
        if ownsSandbox { sandbox.remove() }
    }
}
