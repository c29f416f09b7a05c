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
        if let reason = NetworkSandbox.unavailableReason(repository: CommandRunner.repository) { return reason }
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "aiohomekit is not installed (scripts/install-homekit-peers.sh; make test runs it)"
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/avahi-publish"),
            FileManager.default.isExecutableFile(atPath: "/usr/sbin/avahi-daemon")
        else { return "avahi-daemon and avahi-utils are not installed (scripts/install-homekit-peers.sh)" }
        return nil
    }

    /// Starts the responder in `sandbox`; its D-Bus address for the bridge's avahi-publish.
    static func responder(in sandbox: NetworkSandbox, folder: URL) throws -> String {
        try HomeKitResponder.start(in: sandbox, repository: CommandRunner.repository, folder: folder)
    }
}
