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
            serve's homekit section makes the bridge a HomeKit bridge (or several, each of up to 149 \
            accessories, when there are more devices); each one's identity (long-term key, setup code, the \
            controllers it is paired with, the accessory ids it gave) is kept in the registry. These commands \
            read and change them there: give them serve's --data-dir.

            Examples:
              traitbridge homekit show
              traitbridge homekit reset --data-dir /var/lib/traitbridge
            """,
        subcommands: [HomeKitShowCommand.self, HomeKitResetCommand.self]
    )

    /// The identities kept in the registry, each with its bridge's number (1, then the ones more
    /// devices needed); empty (said why) when there is none.
    static func identities(in store: DeviceStore) throws -> [(slot: Int, identity: HomeKitIdentity)] {
        var found: [(slot: Int, identity: HomeKitIdentity)] = []
        for slot in 1...HomeKitBridges.bridgeLimit {
            let bytes: [UInt8]?
            do { bytes = try store.homeKitIdentity(name: HomeKitBridge.storeName(slot: slot)) } catch {
                printError(error.description)
                throw ExitCode.failure
            }
            guard let bytes else { continue }
            do { found.append((slot, try JSONDecoder().decode(HomeKitIdentity.self, from: Data(bytes)))) } catch {
                printError(
                    "the registry's HomeKit identity of bridge \(slot) cannot be read (\(error)); "
                        + "`traitbridge homekit reset --new` makes new ones"
                )
                throw ExitCode.failure
            }
        }
        if found.isEmpty {
            printError("no HomeKit identity in this registry yet: serve with a homekit section makes one")
        }
        return found
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
        let identities = try HomeKitCommand.identities(in: store)
        guard !identities.isEmpty else { throw ExitCode.failure }
        for (slot, identity) in identities {
            if identities.count > 1 { print("\(slot == 1 ? "" : "\n")bridge \(slot)") }
            show(identity)
        }
    }

    private func show(_ identity: HomeKitIdentity) {
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
            new setup code, new accessory ids). With several bridges (more devices than one holds), each is \
            reset; --new makes a new first bridge and forgets the others. Stop serve first: a running serve \
            keeps the pairings it holds and writes them back.
            """
    )

    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?

    @Flag(help: "Make a new identity: new bridge id, setup code and accessory ids.")
    var new = false

    func run() throws {
        let store = try CloudTokensListCommand.openStore(dataDir)
        let identities = try HomeKitCommand.identities(in: store)
        guard new || !identities.isEmpty else { throw ExitCode.failure }
        do {
            if new {
                let identity = HomeKitIdentity.make {
                    var generator = SystemRandomNumberGenerator()
                    return (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
                }
                try save(identity, slot: 1, in: store)
                for (slot, _) in identities where slot > 1 {
                    try store.removeHomeKitIdentity(name: HomeKitBridge.storeName(slot: slot))
                }
                let others = identities.count(where: { $0.slot > 1 })
                print(
                    "a new identity: bridge id \(identity.pairingID), setup code \(identity.setupCode)"
                        + (others > 0 ? "; \(others) more bridge(s) forgotten (serve makes them again as needed)" : ""))
                return
            }
            for (slot, kept) in identities {
                var identity = kept
                let removed = identity.controllers.count
                identity.controllers = []
                identity.failedTries = 0
                try save(identity, slot: slot, in: store)
                print(
                    (identities.count > 1 ? "bridge \(slot): " : "")
                        + "removed \(removed) pairing\(removed == 1 ? "" : "s"); setup code \(identity.setupCode)")
            }
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
    }

    private func save(_ identity: HomeKitIdentity, slot: Int, in store: DeviceStore) throws {
        try store.saveHomeKitIdentity(
            name: HomeKitBridge.storeName(slot: slot), identity: Array(JSONEncoder().encode(identity)), now: Date())
    }
}
