import Testing
import TraitBridgeCloud
import TraitBridgeModel

/// Which devices Google is given: include narrows, exclude takes away; by id, room, type.
@Suite("export rules")
struct ExportRulesTests {
    @Test("everything by default; include by room (any case); exclude by Google type, Matter type or id")
    func rules() throws {
        let c2c = CloudHome.c2c
        let local = try CloudHome.localDevices()
        func names(_ rules: ExportRules) -> [String] {
            local.filter { c2c.isIncluded($0, by: rules) }.map(\.device.name)
        }
        #expect(names(ExportRules()) == local.map(\.device.name))
        #expect(names(ExportRules(include: .init(rooms: ["porch"]))) == ["Porch bulb"])
        #expect(!names(ExportRules(exclude: .init(types: ["LIGHT"]))).contains("Porch bulb"))
        #expect(!names(ExportRules(exclude: .init(types: ["action.devices.types.LIGHT"]))).contains("Porch bulb"))
        #expect(!names(ExportRules(exclude: .init(types: ["matter.HumiditySensor"]))).contains("Bath humidity"))
        #expect(
            names(ExportRules(include: .init(ids: ["z2m-door", "z2m-temp"]), exclude: .init(ids: ["z2m-temp"]))) == [
                "Back door"
            ])
        let cloud = try CloudHome.cloudDevices()
        let first = try #require(cloud.first)
        #expect(
            c2c.isIncluded(first, by: ExportRules(include: .init(ids: [first.c2cID]))), "the cloud's own id matches")
    }
}
