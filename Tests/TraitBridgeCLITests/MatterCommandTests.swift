import Foundation
import Testing
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMatterBridge
import TraitBridgeMatterDevice
import TraitBridgeMatterSecureChannel
import TraitBridgeSources
import TraitBridgeStore
import TraitBridgeTesting

@testable import TraitBridgeCLI

/// `traitbridge matter show|reset` on a registry (exact help, the codes shown, fabrics forgotten
/// with the identity kept, a new identity made, a damaged state refused with what to do, the QR
/// payload naming the vendor and product serve attested as, resumption records counted and never
/// shown), and the `matterBridge` section's checks.
@Suite("traitbridge matter")
struct MatterCommandTests {
    static let help = """
        OVERVIEW: Show the Matter bridge's pairing codes and fabrics, or forget its
        fabrics.

        serve's matterBridge section makes the bridge a Matter bridge (each offered
        device a bridged endpoint; past devicesPerBridge, more bridges, each
        commissioned on its own); each bridge's setup identity (passcode,
        discriminator), the fabrics that commissioned it (their certificates and
        operational keys) and its endpoints are kept in the registry. These commands
        read and change them there: give them serve's --data-dir.

        Examples:
          traitbridge matter show
          traitbridge matter reset --data-dir /var/lib/traitbridge

        USAGE: traitbridge matter <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          show                    Print the manual pairing code, the QR payload, the
                                  fabrics and the bridged endpoints.
          reset                   Forget every fabric, so controllers can commission
                                  the bridge again.

          See 'traitbridge help matter <subcommand>' for detailed help.
        """

    @Test("help for matter is exact; show and reset read and change the registry's state")
    func showAndReset() throws {
        let result = try CommandRunner.run(["matter", "--help"])
        #expect(result.standardOutput == Self.help + "\n", "\(result.standardOutput)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-mt-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = try CommandRunner.run(["matter", "show", "--data-dir", folder.path])
        #expect(empty.exitCode == 1 && empty.standardError.contains("no Matter bridge state"), "\(empty)")
        let notReset = try CommandRunner.run(["matter", "reset", "--data-dir", folder.path])
        #expect(notReset.exitCode == 1 && notReset.standardError.contains("no Matter bridge state"), "\(notReset)")

        let made = try MatterBridgeState.fresh(passcode: 20_202_021, discriminator: 3840)
        #expect(made.setup.manualPairingCode == "34970112332", "the SDK's example device's code")
        let store = try DeviceStore(directory: folder.path)
        try store.saveMatterBridge(made.record, now: Date())
        let shown = try CommandRunner.run(["matter", "show", "--data-dir", folder.path])
        #expect(shown.exitCode == 0, "\(shown)")
        #expect(shown.standardOutput.contains("manual code     34970112332"), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains("QR payload      MT:") && shown.standardOutput.contains("3840"))
        #expect(shown.standardOutput.contains("not commissioned"), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains("no bridged endpoint yet"), "\(shown.standardOutput)")
        try store.saveMatterEndpoints(
            [
                MatterEndpointAssignment(key: "climate", endpoint: 2, uniqueID: String(repeating: "a", count: 32)),
                MatterEndpointAssignment(key: "climate/t", endpoint: 3, uniqueID: String(repeating: "b", count: 32)),
            ], now: Date())
        let listed = try CommandRunner.run(["matter", "show", "--data-dir", folder.path]).standardOutput
        #expect(listed.contains("2 bridged endpoint(s) (1 is the aggregator):"), "\(listed)")
        #expect(listed.contains("  2  climate  (not in the registry)\n  3  climate  (not in the registry)  part t"))

        let reset = try CommandRunner.run(["matter", "reset", "--data-dir", folder.path])
        #expect(
            reset.exitCode == 0 && reset.standardOutput.contains("removed 0 fabrics; manual pairing code 34970112332"))
        #expect(try store.matterBridge()?.setup == made.record.setup, "the identity is kept, the salt too")

        // A damaged state (a fabric that does not decode): refused, and --identity makes a new one.
        var damaged = made.record
        damaged.fabrics = [
            .init(
                index: 1, rootCertificate: [1, 2], intermediateCertificate: nil, nodeCertificate: [3],
                ipkEpochKey: [UInt8](repeating: 0, count: 16), operationalKey: [UInt8](repeating: 1, count: 32),
                vendorID: 0xFFF1, label: "")
        ]
        damaged.accessControl = [
            .init(fabricIndex: 1, privilege: 5, authMode: 2, subjects: [0x1_B669, 0xFFFF_FFFD_0001_0001]),
            .init(fabricIndex: 1, privilege: 3, authMode: 2, subjects: nil),
        ]
        try store.saveMatterBridge(damaged, now: Date())
        #expect(try store.matterBridge() == damaged, "the registry keeps what it is given, byte for byte")
        let refused = try CommandRunner.run(["matter", "show", "--data-dir", folder.path])
        #expect(refused.exitCode == 1, "\(refused)")
        #expect(
            refused.standardError.contains("fabric 1: a certificate does not decode")
                && refused.standardError.contains("matter reset --identity"), "\(refused.standardError)")
        let renewed = try CommandRunner.run(["matter", "reset", "--identity", "--data-dir", folder.path])
        #expect(renewed.exitCode == 0 && renewed.standardOutput.contains("a new identity"), "\(renewed)")
        let fresh = try #require(try store.matterBridge())
        #expect(fresh.fabrics.isEmpty && fresh.setup.salt != made.record.setup.salt)
    }

    /// The `MT:` payload `matter show` printed, decoded.
    static func shownPayload(_ output: String) throws -> SetupPayload {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("QR payload") }, "\(output)")
        return try SetupPayload(qrCode: String(try #require(line.split(separator: " ").last)))
    }

    @Test("matter show's QR payload names the configured vendor and product; the identity stays when they change")
    func showNamesConfiguredIDs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-mt-ids-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try DeviceStore(directory: folder.path)
        // As serve starts with matterBridge's vendorId and productId (a product's own DAC's).
        let product = try MatterBridgeState.load(
            from: store, passcode: 20_202_021, discriminator: 3840, vendorID: 0x130D, productID: 0x0042)
        let shown = try CommandRunner.run(["matter", "show", "--data-dir", folder.path])
        #expect(shown.exitCode == 0, "\(shown)")
        let payload = try Self.shownPayload(shown.standardOutput)
        #expect(payload.vendorID == 0x130D && payload.productID == 0x0042, "\(shown.standardOutput)")
        #expect(payload.discriminator == 3840 && payload.passcode.value == 20_202_021)
        #expect(shown.standardOutput.contains("vendor/product  0x130D/0x0042"), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains("manual code     34970112332"), "the manual code names no vendor")

        // Started again without them (the SDK's test DAC): the same identity, the test ids.
        let plain = try MatterBridgeState.load(from: store, passcode: nil, discriminator: nil)
        #expect(plain.setup.salt == product.setup.salt, "the passcode's salt and verifier are kept")
        let again = try Self.shownPayload(
            try CommandRunner.run(["matter", "show", "--data-dir", folder.path]).standardOutput)
        #expect(again.vendorID == 0xFFF1 && again.productID == 0x8001)
        // reset --identity keeps the product's ids: they are the configuration's, not the identity's.
        _ = try MatterBridgeState.load(
            from: store, passcode: nil, discriminator: nil, vendorID: 0x130D, productID: 0x0042)
        let renewed = try CommandRunner.run(["matter", "reset", "--identity", "--data-dir", folder.path])
        #expect(renewed.exitCode == 0, "\(renewed)")
        let fresh = try Self.shownPayload(
            try CommandRunner.run(["matter", "show", "--data-dir", folder.path]).standardOutput)
        #expect(fresh.vendorID == 0x130D && fresh.productID == 0x0042 && fresh.passcode.value != 20_202_021)
    }

    @Test("matter show counts a fabric's resumption records and never prints their secrets; reset forgets them")
    func showsResumptionsWithoutSecrets() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-mt-res-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try DeviceStore(directory: folder.path)
        var record = try MatterBridgeState.fresh(passcode: 20_202_021, discriminator: 3840).record
        record.fabrics = [
            .init(
                index: 1, rootCertificate: MatterTestCertificates.root01TLV,
                intermediateCertificate: MatterTestCertificates.ica01TLV,
                nodeCertificate: MatterTestCertificates.node0101TLV, ipkEpochKey: [UInt8](repeating: 0x4A, count: 16),
                operationalKey: MatterTestCertificates.node0101PrivateKey, vendorID: 0xFFF1, label: "")
        ]
        let secret: [UInt8] = [0xC0, 0xFF, 0xEE] + [UInt8](repeating: 0xA5, count: 29)
        record.resumptions = [
            .init(
                resumptionID: [UInt8](repeating: 0x11, count: 16), sharedSecret: secret, fabricIndex: 1,
                peerNodeID: 0x1B669, caseAuthenticatedTags: []),
            // Of a fabric not kept, and malformed: left out when read.
            .init(
                resumptionID: [UInt8](repeating: 0x22, count: 16), sharedSecret: secret, fabricIndex: 2,
                peerNodeID: 5, caseAuthenticatedTags: []),
            .init(
                resumptionID: [UInt8](repeating: 0x33, count: 3), sharedSecret: secret, fabricIndex: 1,
                peerNodeID: 6, caseAuthenticatedTags: []),
        ]
        try store.saveMatterBridge(record, now: Date())
        let state = try MatterBridgeState(record: record)
        #expect(state.resumptions.map(\.peerNodeID) == [0x1B669])
        #expect(state.node.resumptions == state.resumptions)

        let shown = try CommandRunner.run(["matter", "show", "--data-dir", folder.path])
        #expect(shown.exitCode == 0, "\(shown)")
        #expect(shown.standardOutput.contains("1 CASE session(s) resumable"), "\(shown.standardOutput)")
        let text = (shown.standardOutput + shown.standardError).lowercased()
        for leak in ["c0ffee", "c0 ff ee", "192, 255, 238", "a5a5", "1111111111"] {
            #expect(!text.contains(leak), "\(leak) in \(text)")
        }
        let reset = try CommandRunner.run(["matter", "reset", "--data-dir", folder.path])
        #expect(reset.exitCode == 0 && reset.standardOutput.contains("removed 1 fabric;"), "\(reset)")
        let after = try #require(try store.matterBridge())
        #expect(after.fabrics.isEmpty && after.resumptions.isEmpty && after.basicInformation?.nodeLabel == nil)
    }

    @Test("NodeLabel and Location a controller wrote are kept; a name configured since takes the label's place")
    func labelsKept() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-mt-lbl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try DeviceStore(directory: folder.path)
        let first = try MatterBridgeState.load(from: store, passcode: nil, discriminator: nil, name: "Hall bridge")
        #expect(first.node.nodeLabel == nil, "the configured name serves until a controller writes one")
        // What serve's persist does once a controller wrote both.
        let written = NodeSnapshot(
            commissioning: first.snapshot, resumptions: [], nodeLabel: "Kitchen", location: "DE")
        try store.saveMatterBridge(first.keeping(written, configuredName: "Hall bridge").record, now: Date())

        let again = try MatterBridgeState.load(from: store, passcode: nil, discriminator: nil, name: "Hall bridge")
        #expect(again.node.nodeLabel == "Kitchen" && again.node.location == "DE", "a restart serves what was written")
        let shown = try CommandRunner.run(["matter", "show", "--data-dir", folder.path])
        #expect(shown.standardOutput.contains(#"node label      "Kitchen""#), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains("location        DE"), "\(shown.standardOutput)")

        let renamed = try MatterBridgeState.load(from: store, passcode: nil, discriminator: nil, name: "Porch")
        #expect(renamed.node.nodeLabel == nil && renamed.node.location == "DE", "the new name wins; Location stays")
        #expect(try store.matterBridge()?.basicInformation?.configuredName == "Porch")
        let reset = try CommandRunner.run(["matter", "reset", "--data-dir", folder.path])
        #expect(reset.exitCode == 0, "\(reset)")
        let after = try #require(try store.matterBridge()?.basicInformation)
        #expect(after.nodeLabel == nil && after.location == nil && after.configuredName == "Porch")
    }

    @Test("the matterBridge section: defaults, each key checked with its path, include/exclude, no device")
    func configuration() throws {
        func parse(_ text: String) -> Result<ServeConfiguration, ConfigurationError> {
            do { return .success(try ServeConfiguration.parse(Array(text.utf8), path: "c.json")) } catch {
                return .failure(error)
            }
        }
        #expect(MatterBridgeSelection.matterFamily == MatterSource.family, "the bridge knows the Matter source's name")
        let minimal = try parse(#"{"matterBridge": {}}"#).get().matterBridge
        #expect(minimal == MatterBridgeSettings())
        #expect(minimal?.listen == "0.0.0.0" && minimal?.port == 5540 && minimal?.mdnsInterfaces == [])
        let full = try parse(
            #"{"matterBridge": {"listen": "10.0.0.2", "port": 0, "mdns": ["eth0"], "passcode": 20202021, "#
                + #""discriminator": 4095, "name": "Hall", "include": {"rooms": ["Hall"]}, "#
                + #""exclude": {"ids": ["z2m-9"]}, "devicesPerBridge": 50}}"#
        ).get().matterBridge
        #expect(
            full
                == MatterBridgeSettings(
                    listen: "10.0.0.2", port: 0, mdnsInterfaces: ["eth0"], passcode: 20_202_021, discriminator: 4095,
                    name: "Hall",
                    exportRules: ExportRules(
                        include: ExportRules.Match(rooms: ["Hall"]), exclude: ExportRules.Match(ids: ["z2m-9"])),
                    devicesPerBridge: 50))
        #expect(minimal?.devicesPerBridge == 149, "Apple Home's limit by default")
        let refusals: [(String, String)] = [
            (#"{"matterBridge": {"device": "a"}}"#, #"matterBridge.device: the bridge now offers every device"#),
            (#"{"matterBridge": 1}"#, "matterBridge: expected an object with listen, port"),
            (
                #"{"matterBridge": {"port": 65536}}"#,
                "matterBridge.port: expected a port from 0 to 65535"
            ),
            (#"{"matterBridge": {"port": 1.5}}"#, "matterBridge.port: expected a port"),
            (#"{"matterBridge": {"passcode": 12345678}}"#, "matterBridge.passcode: expected a setup"),
            (#"{"matterBridge": {"passcode": 99999999}}"#, "matterBridge.passcode: expected a setup"),
            (#"{"matterBridge": {"passcode": 4294967297}}"#, "matterBridge.passcode: expected"),
            (#"{"matterBridge": {"passcode": "20202021"}}"#, "matterBridge.passcode: expected"),
            (#"{"matterBridge": {"discriminator": 4096}}"#, "matterBridge.discriminator: expected"),
            (#"{"matterBridge": {"discriminator": -1}}"#, "matterBridge.discriminator: expected"),
            (#"{"matterBridge": {"mdns": "eth0"}}"#, "matterBridge.mdns: expected a list"),
            (#"{"matterBridge": {"mdns": [""]}}"#, "matterBridge.mdns: expected a list"),
            (#"{"matterBridge": {"listen": ""}}"#, "matterBridge.listen: expected an address"),
            (
                #"{"matterBridge": {"name": "\#(String(repeating: "n", count: 33))"}}"#,
                "matterBridge.name: expected a name of 1 to 32 bytes"
            ),
            (#"{"matterBridge": {"include": {"names": ["a"]}}}"#, "matterBridge.include"),
            (#"{"matterBridge": {"pin": 1}}"#, "matterBridge.pin: unknown key 'pin'; allowed: listen"),
            (#"{"matterBridge": {"devicesPerBridge": 0}}"#, "matterBridge.devicesPerBridge: expected a number from 1"),
            (#"{"matterBridge": {"devicesPerBridge": 1001}}"#, "matterBridge.devicesPerBridge: expected a number"),
            (#"{"matterBridge": {"devicesPerBridge": 2.5}}"#, "more devices make more bridges"),
            (#"{"matterBridge": {"devicesPerBridge": "50"}}"#, "matterBridge.devicesPerBridge: expected"),
        ]
        for (text, message) in refusals {
            guard case .failure(let error) = parse(text) else {
                Issue.record("accepted: \(text)")
                continue
            }
            #expect(error.description.contains(message), "\(text): \(error)")
        }
    }
}
