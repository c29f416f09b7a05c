import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeTesting

@testable import TraitBridgeCLI

/// The HomeKit tests' peers (`scripts/install-homekit-peers.sh`): avahi-daemon in a network
/// sandbox (`scripts/homekit-responder.sh`) and a real controller, aiohomekit, driven line by line
/// (`scripts/homekit-controller.py`) inside the same sandbox.
enum HomeKitPeers {
    static let python = CommandRunner.repository + "/.build-homekit/venv/bin/python"

    /// Why the HomeKit peers cannot run here, or nil.
    static var unavailableReason: String? {
        if let reason = MDNSResponder.unavailableReason(repository: CommandRunner.repository) { return reason }
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "aiohomekit is not installed (scripts/install-homekit-peers.sh; make test runs it)"
        }
        return nil
    }
}

/// What each end-to-end HomeKit test starts from: a private mosquitto, a folder, a network sandbox
/// with Avahi in it; `serve` with a homekit section announced there, the simulated home, and
/// aiohomekit in the same sandbox. `remove` takes the sandbox and the folder away.
final class HomeKitTestBed {
    let broker: MosquittoBroker
    let folder: URL
    let sandbox: NetworkSandbox
    /// The sandbox's D-Bus, for serve's avahi-publish.
    let bus: String
    let serveLog: String

    init(name: String) throws {
        broker = try MosquittoBroker()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        sandbox = try NetworkSandbox(repository: CommandRunner.repository)
        serveLog = folder.appendingPathComponent("serve.log").path
        do { bus = try MDNSResponder.start(in: sandbox, repository: CommandRunner.repository, folder: folder) } catch {
            sandbox.remove()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    func remove() {
        sandbox.remove()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Writes serve's configuration: `homekit` listening and announced in the sandbox, with the
    /// tests' setup code, and `settings` besides.
    func configure(_ settings: [String: Any]) throws -> String {
        let config = folder.appendingPathComponent("config.json").path
        let homekit: [String: Any] = [
            "listen": sandbox.hostAddress, "port": 0, "mdns": [sandbox.hostInterface], "setupCode": HomeKitTests.code,
        ].merging(settings) { $1 }
        try JSONSerialization.data(withJSONObject: ["homekit": homekit]).write(to: URL(fileURLWithPath: config))
        return config
    }

    /// `serve` with `config` and the folder's registry, its log in `serveLog`.
    func serve(config: String) throws -> BridgeProcess {
        try BridgeProcess(
            [
                "serve", "--broker", broker.url, "--config", config, "--data-dir",
                folder.appendingPathComponent("data").path,
            ], log: serveLog, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus])
    }

    /// The simulated home (`HomeKitTests.scenario`) for two minutes.
    func simulate() throws -> BridgeProcess {
        try BridgeProcess(
            [
                "simulate", "--scenario", try HomeKitTests.scenario(in: folder),
                "--broker", broker.url, "--duration", "120",
            ], log: folder.appendingPathComponent("simulate.log").path)
    }

    /// aiohomekit, in the sandbox.
    func controller() throws -> HomeKitController {
        try HomeKitController(
            in: sandbox, python: HomeKitPeers.python,
            script: CommandRunner.repository + "/scripts/homekit-controller.py",
            log: folder.appendingPathComponent("controller.log").path)
    }
}
