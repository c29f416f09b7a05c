import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterSecureChannel
import TraitBridgeTesting

/// The gate of the Matter device: a real Matter Server (python-matter-server, the controller Home
/// Assistant runs) finds the device by DNS-SD, commissions it, interviews it, subscribes, and
/// commands its light; the light's state comes back through the subscription. All inside a network
/// sandbox with Avahi.
@Suite(
    "Matter device commissioned by the Matter Server", .serialized,
    .enabled(
        if: SDKController.mdnsUnavailableReason == nil
            && MatterServerPeer.unavailableReason(repository: SDKController.repository) == nil,
        """
        \(SDKController.mdnsUnavailableReason ?? "") \
        \(MatterServerPeer.unavailableReason(repository: SDKController.repository) ?? "")
        """))
struct MatterServerCommissioningTests {
    @Test(
        """
        commission_on_network by DNS-SD: interviewed, subscribed, the light toggled and reported back; \
        a second controller joins through the window the server opens; RemoveFabric forgets the first
        """)
    func commissioned() throws {
        let bed = try MatterTestBed()
        defer { bed.remove() }
        let (sandbox, paa) = (bed.sandbox, bed.paa)
        let matterServer = try MatterServerPeer(
            repository: SDKController.repository, sandbox: sandbox, paaDirectory: paa.path)
        defer { matterServer.stop() }
        try MatterDeviceServerTests.withServer(
            host: sandbox.hostAddress, settings: bed.deviceSettings, endpoints: [OnOffLight(id: 1)], exclusive: false
        ) { server, log in
            func device() -> String {
                let server = LogFile.read(matterServer.directory.appendingPathComponent("server.log").path)
                return log.all.suffix(40).joined(separator: "\n") + "\n--- Matter Server:\n" + server.suffix(3000)
            }
            let command = MatterServerPeer.commissionCommand(passcode: 20_202_021, address: nil)
            let answer = try await matterServer.sendPolled([command]).first ?? ""
            print("Matter Server commission_on_network: \(answer.prefix(300))")
            #expect(
                answer.contains(#""node_id": 1"#) || answer.contains(#""node_id":1"#),
                "\(answer.prefix(600))\n\(device())")
            #expect(answer.contains(#""1/6/0": false"#) || answer.contains(#""1/6/0":false"#), "\(answer.prefix(2000))")
            #expect(answer.contains(#""TraitBridge""#), "the interview read Basic Information")
            #expect(log.all.contains { $0.contains("commissioning complete") }, "\(device())")

            let toggle =
                #"{"message_id":"toggle","command":"device_command","args":{"node_id":1,"endpoint_id":1,"#
                + #""cluster_id":6,"command_name":"Toggle","payload":{}}}"#
            let toggled = try await matterServer.sendPolled([toggle]).first ?? ""
            #expect(!toggled.contains("error_code"), "\(toggled)\n\(device())")
            print("Matter Server device_command Toggle: \(toggled.prefix(300))")
            // The server's subscription brings the light's new state back (within its minimum interval).
            var state = ""
            // Up to 30 s: under make test (ASan, two cores) the server applies reports late.
            for attempt in 0..<60 {
                if attempt > 0 { try await Task.sleep(for: .milliseconds(500)) }
                let get = #"{"message_id":"get","command":"get_node","args":{"node_id":1}}"#
                state = try await matterServer.sendPolled([get]).first ?? ""
                if state.contains(#""1/6/0": true"#) || state.contains(#""1/6/0":true"#) { break }
            }
            #expect(state.contains(#""1/6/0": true"#) || state.contains(#""1/6/0":true"#), "\(device())")
            #expect(log.all.contains { $0.contains("subscription") && $0.contains("primed") }, "\(device())")

            // Multi-admin: the Matter Server opens a window; the SDK's controller joins with its own fabric.
            let open = #"{"message_id":"open","command":"open_commissioning_window","args":{"node_id":1}}"#
            let window = try await matterServer.sendPolled([open]).first ?? ""
            let pin = try #require(Self.number(after: #""setup_pin_code": "#, in: window), "\(window)\n\(device())")
            let second = try await SDKController.run(
                [
                    "--address", sandbox.hostAddress, "--port", "\(server.port ?? 0)", "--passcode", "\(pin)",
                    "--paa-dir", paa.path, "--node-id", "0x77", "--timeout", "55", "commission",
                ], in: sandbox)
            #expect(second.json["commissioned"] as? Bool == true, "\(second.tail)\n\(device())")
            let fabrics =
                #"{"message_id":"fabrics","command":"read_attribute","args":{"node_id":1,"attribute_path":"0/62/3"}}"#
            let count = try await matterServer.sendPolled([fabrics]).first ?? ""
            #expect(count.contains(#""0/62/3": 2"#), "two fabrics: \(count)")

            // RemoveFabric: the Matter Server forgets the node; its fabric goes, the other stays.
            let remove = #"{"message_id":"remove","command":"remove_node","args":{"node_id":1}}"#
            let removed = try await matterServer.sendPolled([remove]).first ?? ""
            #expect(!removed.contains("error_code"), "\(removed)")
            #expect(log.all.contains { $0.contains("fabric 1 removed") }, "\(device())")
            #expect(server.port != nil)
        }
    }

    @Test(
        """
        commission_with_code with the 11-digit manual pairing code: found by its short discriminator over \
        DNS-SD, commissioned and interviewed
        """)
    func commissionedWithManualCode() throws {
        let bed = try MatterTestBed()
        defer { bed.remove() }
        let matterServer = try MatterServerPeer(
            repository: SDKController.repository, sandbox: bed.sandbox, paaDirectory: bed.paa.path)
        defer { matterServer.stop() }
        // The code the device prints (MatterDeviceServerTests.serve's identity: 20202021, discriminator 3840).
        let code = try SetupPayload(
            vendorID: 0xFFF1, productID: 0x8001, discriminator: 3840, passcode: SetupPasscode(20_202_021)
        ).manualPairingCode
        #expect(code.count == 11)
        try MatterDeviceServerTests.withServer(
            host: bed.sandbox.hostAddress, settings: bed.deviceSettings, endpoints: [OnOffLight(id: 1)],
            exclusive: false
        ) { _, log in
            // network_only: the Matter Server has no Bluetooth here; the code carries no address.
            let command =
                #"{"message_id":"code","command":"commission_with_code","#
                + #""args":{"code":"\#(code)","network_only":true}}"#
            let answer = try await matterServer.sendPolled([command]).first ?? ""
            print("Matter Server commission_with_code: \(answer.prefix(300))")
            let server = LogFile.read(matterServer.directory.appendingPathComponent("server.log").path)
            let context = log.all.suffix(40).joined(separator: "\n") + "\n--- Matter Server:\n" + server.suffix(3000)
            #expect(
                answer.contains(#""node_id": 1"#) || answer.contains(#""node_id":1"#),
                "\(answer.prefix(600))\n\(context)")
            #expect(answer.contains(#""1/6/0": false"#) || answer.contains(#""1/6/0":false"#), "\(answer.prefix(2000))")
            #expect(log.all.contains { $0.contains("PASE succeeded") }, "\(context)")
            #expect(log.all.contains { $0.contains("commissioning complete") }, "\(context)")
        }
    }

    /// The integer after `key` in a JSON text.
    static func number(after key: String, in text: String) -> Int? {
        guard let range = text.range(of: key) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}
