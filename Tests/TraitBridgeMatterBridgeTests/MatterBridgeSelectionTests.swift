import Testing
import TraitBridgeCloud
import TraitBridgeMatterInteraction
import TraitBridgeModel

@testable import TraitBridgeMatterBridge

/// Which devices the bridge offers: everything by default; include/exclude by id, room and type; a
/// device read from a Matter Server only when its id is included.
@Suite("Matter bridge: which devices")
struct MatterBridgeSelectionTests {
    static func device(_ id: String, family: String = "zigbee2mqtt", type: String = "matter.OnOffLight") -> Device {
        try! Device(
            id: DeviceID(id), name: id,
            sources: [SourceReference(family: family, instance: "default", nativeID: id)],
            deviceTypes: [
                DeviceTypeInstance(key: "main", typeID: DeviceTypeID(parsing: type)!, isPrimaryType: true, traits: [])
            ])
    }

    @Test("everything without rules; rooms, types and ids as the rules say")
    func rules() {
        let everything = MatterBridgeSelection(rules: ExportRules())
        #expect(everything.offers(Self.device("a"), room: nil))
        let garage = MatterBridgeSelection(rules: ExportRules(exclude: ExportRules.Match(rooms: ["Garage"])))
        #expect(!garage.offers(Self.device("a"), room: "garage") && garage.offers(Self.device("a"), room: "Hall"))
        let lights = MatterBridgeSelection(rules: ExportRules(include: ExportRules.Match(types: ["matter.OnOffLight"])))
        #expect(lights.offers(Self.device("a"), room: nil))
        #expect(!lights.offers(Self.device("b", type: "matter.DoorLock"), room: nil))
    }

    @Test("a device from a Matter source is offered only when its id is included")
    func matterSourced() {
        let fromMatter = Self.device("matter-1", family: MatterBridgeSelection.matterFamily)
        #expect(!MatterBridgeSelection(rules: ExportRules()).offers(fromMatter, room: nil))
        let included = MatterBridgeSelection(rules: ExportRules(include: ExportRules.Match(ids: ["matter-1"])))
        #expect(included.offers(fromMatter, room: nil))
    }
}

/// A controller's command answered with what the unified path said: done is SUCCESS, each refusal
/// its status.
@Suite("Matter bridge: a command's status")
struct MatterCommandStatusTests {
    @Test("confirmed and assumed are SUCCESS; each refusal code its status; an unknown code FAILURE")
    func statuses() {
        #expect(MatterCommandStatus.of(status: "confirmed", code: nil) == .success)
        #expect(MatterCommandStatus.of(status: "assumed", code: nil) == .success)
        let refusals: [(String, StatusCode)] = [
            ("deviceOffline", .failure), ("valueOutOfRange", .constraintError), ("notSupported", .unsupportedCommand),
            ("invalidValue", .invalidCommand), ("protocolError", .invalidCommand),
            ("failedPrecondition", .invalidInState), ("resourceExhausted", .resourceExhausted),
            ("deviceNotFound", .failure), ("somethingNew", .failure),
        ]
        for (code, status) in refusals {
            #expect(MatterCommandStatus.of(status: "error", code: code) == status, "\(code)")
        }
    }
}
