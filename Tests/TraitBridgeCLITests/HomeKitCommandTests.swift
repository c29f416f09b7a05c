import Foundation
import Testing
import TraitBridgeHomeKit
import TraitBridgeStore

/// `traitbridge homekit show|reset` on a registry: exact help, the setup code and QR payload
/// shown, pairings forgotten (the identity kept), a new identity made.
@Suite("traitbridge homekit")
struct HomeKitCommandTests {
    static let help = """
        OVERVIEW: Show the HomeKit bridge's setup code and pairings, or forget its
        pairings.

        serve's homekit section makes the bridge a HomeKit bridge (or several, each of
        up to 149 accessories, when there are more devices); each one's identity
        (long-term key, setup code, the controllers it is paired with, the accessory
        ids it gave) is kept in the registry. These commands read and change them
        there: give them serve's --data-dir.

        Examples:
          traitbridge homekit show
          traitbridge homekit reset --data-dir /var/lib/traitbridge

        USAGE: traitbridge homekit <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          show                    Print the setup code, the QR payload and the paired
                                  controllers.
          reset                   Forget every pairing (and the wrong-code count), so a
                                  controller can pair again.

          See 'traitbridge help homekit <subcommand>' for detailed help.
        """

    @Test("help for homekit is exact; show and reset read and change the registry's identity")
    func showAndReset() throws {
        let result = try CommandRunner.run(["homekit", "--help"])
        #expect(result.standardOutput == Self.help + "\n", "\(result.standardOutput)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-hk-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = try CommandRunner.run(["homekit", "show", "--data-dir", folder.path])
        #expect(empty.exitCode == 1 && empty.standardError.contains("no HomeKit identity"), "\(empty)")
        var identity = HomeKitIdentity.make { Array(0..<64) }
        identity.controllers = [
            PairedController(id: "phone", publicKey: [UInt8](repeating: 1, count: 32), isAdmin: true)
        ]
        let store = try DeviceStore(directory: folder.path)
        try store.saveHomeKitIdentity(name: "main", identity: Array(JSONEncoder().encode(identity)), now: Date())
        let shown = try CommandRunner.run(["homekit", "show", "--data-dir", folder.path])
        #expect(shown.exitCode == 0 && shown.standardOutput.contains("setup code      \(identity.setupCode)"))
        #expect(
            shown.standardOutput.contains("QR payload      X-HM://") && shown.standardOutput.contains("phone  admin"))
        #expect(!shown.standardOutput.contains(identity.longTermSecretKey.map { String($0) }.joined()), "no key")
        let reset = try CommandRunner.run(["homekit", "reset", "--data-dir", folder.path])
        #expect(reset.exitCode == 0 && reset.standardOutput.contains("removed 1 pairing"), "\(reset)")
        let after = try CommandRunner.run(["homekit", "show", "--data-dir", folder.path])
        #expect(after.standardOutput.contains("not paired") && after.standardOutput.contains(identity.pairingID))
        // A second bridge (more devices than one holds): shown and reset with the first; --new forgets it.
        var second = HomeKitIdentity.make { Array(64..<128) }
        second.controllers = identity.controllers
        try store.saveHomeKitIdentity(name: "bridge-2", identity: Array(JSONEncoder().encode(second)), now: Date())
        let both = try CommandRunner.run(["homekit", "show", "--data-dir", folder.path])
        #expect(both.standardOutput.hasPrefix("bridge 1\n") && both.standardOutput.contains("\nbridge 2\n"), "\(both)")
        #expect(both.standardOutput.contains(second.pairingID) && both.standardOutput.contains(identity.pairingID))
        let resetBoth = try CommandRunner.run(["homekit", "reset", "--data-dir", folder.path])
        #expect(resetBoth.standardOutput.contains("bridge 2: removed 1 pairing;"), "\(resetBoth)")
        let renewed = try CommandRunner.run(["homekit", "reset", "--new", "--data-dir", folder.path])
        #expect(renewed.standardOutput.contains("1 more bridge(s) forgotten"), "\(renewed)")
        let fresh = try CommandRunner.run(["homekit", "show", "--data-dir", folder.path])
        #expect(!fresh.standardOutput.contains(identity.pairingID), "a new bridge id: \(fresh.standardOutput)")
        #expect(!fresh.standardOutput.contains(second.pairingID) && !fresh.standardOutput.contains("bridge 2"))
    }
}
