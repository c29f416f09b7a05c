import Testing
import TraitBridgeJSON

@testable import TraitBridgeCLI

/// The per-member lines of `group command`, `scene run` and `automation run`.
@Suite("fan-out answer lines")
struct FanOutReportTests {
    func line(_ text: String) throws -> String {
        FanOutReport.line(try JSONDocument.parse(text).root)
    }

    @Test("a device action, a refused member with its code, and a notification with no device")
    func lines() throws {
        #expect(
            try line(#"{"name": "Hall light", "action": {"trait": "matter.OnOff", "command": "on"}, "status": "confirmed"}"#)
                == "✓ Hall light matter.OnOff.on: confirmed")
        #expect(
            try line(
                #"{"device": "z2m-1", "deviceType": "switch_l1", "status": "refused", "code": "deviceOffline", "#
                    + #""message": "offline"}"#) == "✗ z2m-1/switch_l1: refused (deviceOffline): offline")
        #expect(
            try line(#"{"action": "notify back-door: The back door opened", "status": "confirmed"}"#)
                == "✓ notify back-door: The back door opened: confirmed")
    }
}
