import ArgumentParser
import Foundation
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterSecureChannel
import TraitBridgeStore

/// `traitbridge matter reset`.
struct MatterResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Forget every fabric, so controllers can commission the bridge again.",
        discussion: """
            For a bridge whose controllers are gone (a reset Matter Server, a new home): its fabrics, their \
            access control entries, CASE resumption records, the regulatory config, the NodeLabel and \
            Location controllers wrote and the bridged devices' endpoint numbers and UniqueIDs are removed; the \
            passcode and discriminator stay, so the same codes commission it again. --identity also draws a \
            new passcode and discriminator (a passcode or discriminator in serve's matterBridge section still \
            wins). Every bridge is reset unless --bridge names one. Stop serve first: a running serve keeps the \
            fabrics it holds and writes them back.
            """
    )

    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?

    @Flag(help: "Make a new identity too: a new passcode and discriminator.")
    var identity = false

    @Option(help: "Only this bridge (1…16); without it, every bridge the registry keeps.")
    var bridge: Int?

    func run() throws {
        let store = try CloudTokensListCommand.openStore(dataDir)
        let numbers = try MatterCommand.bridges(in: store, only: bridge)
        for number in numbers {
            try reset(number, store, named: numbers.count > 1 || number > 1 ? "bridge \(number): " : "")
        }
    }

    private func reset(_ number: Int, _ store: DeviceStore, named prefix: String) throws {
        do {
            if identity {
                // The vendor and product serve attested as, when the damaged state still says them.
                let kept = (try? store.matterBridge(number))??.basicInformation
                var made = try MatterBridgeState.fresh(
                    vendorID: kept?.vendorID ?? MatterBridgeState.testVendorID,
                    productID: kept?.productID ?? MatterBridgeState.testProductID)
                made.configuredName = kept?.configuredName
                try store.resetMatterBridge(made.record, bridge: number, now: Date())
                print(
                    "\(prefix)a new identity: manual pairing code \(made.setup.manualPairingCode), discriminator "
                        + "\(made.setup.payload.discriminator); no fabric")
                return
            }
            guard var state = try MatterCommand.state(in: store, bridge: number) else { throw ExitCode.failure }
            let removed = state.snapshot.fabrics.count
            state = state.reset()
            try store.resetMatterBridge(state.record, bridge: number, now: Date())
            print(
                "\(prefix)removed \(removed) fabric\(removed == 1 ? "" : "s"); manual pairing code "
                    + "\(state.setup.manualPairingCode)")
        } catch let exit as ExitCode {
            throw exit
        } catch {
            printError("\(prefix)\(error)")
            throw ExitCode.failure
        }
    }
}
