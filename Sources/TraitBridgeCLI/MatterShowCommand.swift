import ArgumentParser
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials
import TraitBridgeMatterDevice
import TraitBridgeMatterSecureChannel

/// `traitbridge matter show`.
struct MatterShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the manual pairing code, the QR payload and the fabrics.",
        discussion: """
            The manual pairing code is what a controller's "add device" asks for (Home Assistant, Apple Home, \
            Google Home); the QR payload (MT:…) is what a QR code generator turns into the code to scan. \
            The QR payload names the vendor and product serve last attested as (matterBridge's vendorId and \
            productId). Operational keys and CASE resumption secrets stay in the registry.
            """
    )

    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?

    func run() throws {
        let store = try CloudTokensListCommand.openStore(dataDir)
        guard let state = try MatterCommand.state(in: store) else { throw ExitCode.failure }
        print("manual code     \(state.setup.manualPairingCode)")
        print("QR payload      \(state.setup.qrCode)")
        print("passcode        \(state.setup.payload.passcode.value)")
        print("discriminator   \(state.setup.payload.discriminator)")
        print("vendor/product  \(Self.hexID(state.vendorID))/\(Self.hexID(state.productID))")
        if let label = state.nodeLabel, !label.isEmpty { print("node label      \"\(label)\"") }
        if let location = state.location { print("location        \(location)") }
        // Checked when the state was read: each fabric restores.
        let fabrics = (try? CommissioningState(restoring: state.snapshot))?.fabrics ?? []
        guard !fabrics.isEmpty else {
            print("not commissioned: a controller can commission the bridge with the codes")
            return
        }
        print("commissioned on \(fabrics.count) fabric\(fabrics.count == 1 ? "" : "s"):")
        for fabric in fabrics {
            let vendor = String(fabric.vendorID, radix: 16, uppercase: true)
            print(
                "  fabric \(fabric.index)  fabric id \(hex(fabric.fabricID))  node id "
                    + "\(hex(fabric.nodeID))  vendor 0x\(vendor)"
                    + (fabric.label.isEmpty ? "" : "  label \"\(fabric.label)\""))
            // How many controllers can resume a session after a restart; never a record's secret or ID.
            let resumable = state.resumptions.count { $0.fabricIndex == fabric.index }
            if resumable > 0 { print("    \(resumable) CASE session(s) resumable") }
        }
    }

    static func hexID(_ id: UInt16) -> String {
        let digits = String(id, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
