import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeTesting

/// The whole commissioning of the device by the CHIP SDK's own controller (`scripts/matter-controller.py`,
/// the SDK python-matter-server runs), in a network sandbox with Avahi: PASE, the commissioning reads,
/// the fail-safe, attestation against the SDK's test PAA, CSR, the NOC chain, the device found by
/// DNS-SD and CASE, CommissioningComplete; then the light read, toggled and read again over CASE, and
/// after the controller's sessions are expired, read again over a CASE session resumed (Sigma2_Resume).
@Suite(
    "Matter device commissioned by the CHIP SDK's controller", .serialized,
    .enabled(if: SDKController.mdnsUnavailableReason == nil, "\(SDKController.mdnsUnavailableReason ?? "")"))
struct MatterCommissioningTests {
    @Test("commissioned end to end, its light toggled over CASE; sessions expired, a read over a resumed CASE")
    func commissioned() throws {
        let bed = try MatterTestBed()
        defer { bed.remove() }
        let (sandbox, paa) = (bed.sandbox, bed.paa)
        try MatterDeviceServerTests.withServer(
            host: sandbox.hostAddress, settings: bed.deviceSettings, endpoints: [OnOffLight(id: 1)]
        ) { server, log in
            let run = try await SDKController.run(
                [
                    "--address", sandbox.hostAddress, "--port", "\(server.port ?? 0)", "--passcode", "20202021",
                    "--paa-dir", paa.path, "--timeout", "55", "commission-then-resume",
                ], in: sandbox)
            let device = log.all.suffix(40).joined(separator: "\n")
            #expect(run.json["commissioned"] as? Bool == true, "\(run.tail)\n--- device:\n\(device)")
            #expect(run.json["onOff"] as? [Bool] == [false, true], "\(run.line)")
            #expect(run.json["vendorName"] as? String == "TraitBridge", "\(run.line)")
            #expect(log.all.contains { $0.contains("commissioning complete") }, "\(device)")
            // CASE resumption (the SDK's controller kept the resumption record TBEData2 gave it).
            #expect(run.json["onOffAfterNewSession"] as? Bool == true, "\(run.tail)\n--- device:\n\(device)")
            let succeeded = log.all.filter { $0.contains("CASE succeeded: session") }
            let resumed = log.all.filter { $0.contains("CASE resumed: session") }
            #expect(succeeded.count == 1, "one full CASE, at commissioning:\n\(device)")
            #expect(resumed.count == 1, "the second CASE resumed the first:\n\(device)")
            // For BENCHMARKS ("The Matter device"): the phases' wall times as the controller saw them.
            let phases = ["paseSeconds", "commissionSeconds", "readSeconds", "resumedReadSeconds"]
            print(
                "matter commissioning timing: "
                    + phases.map { "\($0) \(run.json[$0] ?? "none")" }.joined(separator: ", "))
        }
    }
}
