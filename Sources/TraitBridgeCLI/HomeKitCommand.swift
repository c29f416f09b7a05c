import ArgumentParser
import Foundation
import TraitBridgeHomeKit
import TraitBridgeStore

/// `traitbridge homekit show|reset`: the HomeKit bridge's identity as the registry keeps it.
struct HomeKitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "homekit",
        abstract: "Show the HomeKit bridge's setup code and pairings, or forget its pairings.",
        discussion: """
            serve's homekit section makes the bridge a HomeKit bridge; its identity (long-term key, setup \
            code, the controllers it is paired with, the accessory ids it gave) is kept in the registry. These \
            commands read and change it there: give them serve's --data-dir.

            Examples:
              traitbridge homekit show
              traitbridge homekit reset --data-dir /var/lib/traitbridge
            """,
        subcommands: [HomeKitShowCommand.self, HomeKitResetCommand.self]
    )

    /// The identity kept in the registry of `dataDir`; nil (said why) when there is none.
    static func identity(in store: DeviceStore) throws -> HomeKitIdentity? {
        let bytes: [UInt8]?
        do { bytes = try store.homeKitIdentity(name: "main") } catch {
            printError(error.description)
            throw ExitCode.failure
        }
        guard let bytes else {
            printError("no HomeKit identity in this registry yet: serve with a homekit section makes one")
            return nil
        }
        do { return try JSONDecoder().decode(HomeKitIdentity.self, from: Data(bytes)) } catch {
            printError(
                "the registry's HomeKit identity cannot be read (\(error)); "
                    + "`traitbridge homekit reset --new` makes a new one"
            )
            throw ExitCode.failure
        }
    }
}

/// `traitbridge homekit show`.
struct HomeKitShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the setup code, the QR payload and the paired controllers.",
        discussion: """
            The setup code is what the Home app asks for ("Add Accessory", "More options…"); the QR \
            payload (X-HM://…) is what a QR code generator turns into the code to scan. Nothing secret \
            is printed: the long-term key stays in the registry.
            """
    )

    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?

    func run() throws {
        let store = try CloudTokensListCommand.openStore(dataDir)
        guard let identity = try HomeKitCommand.identity(in: store) else { throw ExitCode.failure }
        print("bridge id       \(identity.pairingID)")
        print("setup code      \(identity.setupCode)")
        print(
            "QR payload      "
                + (SetupCode.qrPayload(code: identity.setupCode, setupID: identity.setupID, category: 2) ?? "")
        )
        print(
            "configuration   \(identity.configurationNumber) (c#), \(identity.accessoryIDs.count) accessory ids given")
        if identity.failedTries > 0 { print("wrong codes     \(identity.failedTries) since the last pairing") }
        print(identity.isPaired ? "paired with:" : "not paired: a controller can pair with the setup code")
        for controller in identity.controllers {
            print("  \(controller.id)  \(controller.isAdmin ? "admin" : "regular")")
        }
    }
}

/// `traitbridge homekit reset`.
struct HomeKitResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Forget every pairing (and the wrong-code count), so a controller can pair again.",
        discussion: """
            For a bridge whose controller is gone (a lost phone, a home reset in the Home app): its pairings \
            are removed and the count of wrong setup codes is cleared; the bridge id, setup code and accessory \
            ids stay, so a new pairing finds the same accessories. --new makes a new identity instead (new id, \
            new setup code, new accessory ids). Stop serve first: a running serve keeps the pairings it holds \
            and writes them back.
            """
    )

    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?

    @Flag(help: "Make a new identity: new bridge id, setup code and accessory ids.")
    var new = false

    func run() throws {
        let store = try CloudTokensListCommand.openStore(dataDir)
        var identity: HomeKitIdentity
        if new {
            identity = HomeKitIdentity.make {
                var generator = SystemRandomNumberGenerator()
                return (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
        } else {
            guard let kept = try HomeKitCommand.identity(in: store) else { throw ExitCode.failure }
            identity = kept
            let removed = identity.controllers.count
            identity.controllers = []
            identity.failedTries = 0
            print("removed \(removed) pairing\(removed == 1 ? "" : "s"); setup code \(identity.setupCode)")
        }
        do {
            try store.saveHomeKitIdentity(name: "main", identity: Array(JSONEncoder().encode(identity)), now: Date())
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
        if new { print("a new identity: bridge id \(identity.pairingID), setup code \(identity.setupCode)") }
    }
}
