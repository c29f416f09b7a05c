import Testing
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel

@Suite("SYNC import")
struct SyncImportTests {
    let c2c = CloudFixtures.c2c

    @Test("a color light becomes an Extended Color Light with Matter traits, remote and unknown")
    func colorLight() throws {
        let sync = """
            {"requestId": "r1", "payload": {"agentUserId": "u1", "devices": [{
              "id": "kitchen-1", "type": "action.devices.types.LIGHT",
              "traits": ["action.devices.traits.OnOff", "action.devices.traits.Brightness", "action.devices.traits.ColorSetting"],
              "name": {"name": "Kitchen light", "nicknames": ["Cooker light"]},
              "willReportState": true, "roomHint": "Kitchen",
              "attributes": {"colorModel": "rgb", "colorTemperatureRange": {"temperatureMinK": 2000, "temperatureMaxK": 6500}},
              "matterUniqueId": "ABC-123", "matterOriginalVendorId": "0xfff1", "matterOriginalProductId": "0x1234",
              "otherDeviceIds": [{"deviceId": "local-1"}], "customData": {"port": 80}
            }]}}
            """
        let result = try c2c.importSync(CloudFixtures.bytes(sync), source: "test", now: CloudFixtures.now)
        #expect(result.problems.isEmpty, "\(result.problems)")
        let imported = try #require(result.devices.first)
        let device = imported.device
        #expect(device.id.rawValue == "c2c-kitchen-1")
        #expect(device.name == "Kitchen light")
        #expect(device.deviceTypes.map(\.typeID) == [.matter("ExtendedColorLight")])
        #expect(device.deviceTypes[0].traits.map(\.traitID) == [.matter("Identify"), .matter("OnOff"), .matter("LevelControl"), .matter("ColorControl")])
        let color = try #require(device.trait(at: TraitAddress(deviceTypeKey: "light", traitID: .matter("ColorControl"))))
        #expect(color.attributes["colorTempPhysicalMinMireds"] == .int(154))
        #expect(color.attributes["colorTempPhysicalMaxMireds"] == .int(500))
        #expect(color.attributes["colorCapabilities"] == .int(0b11001))
        #expect(device.identity.uniqueID == "ABC-123")
        #expect(device.identity.vendorID == 0xfff1)
        #expect(device.identity.productID == 0x1234)
        #expect(device.identity.otherDeviceIDs.map(\.deviceID) == ["local-1"])
        #expect(device.sourceConnectivity == SourceConnectivity(connectivityState: .unknown, dataSourceLocality: .remote))
        #expect(color.connectivity.reason == .cloudImported)
        #expect(imported.origin.roomHint == "Kitchen")
        #expect(imported.origin.nicknames == ["Cooker light"])
        #expect(imported.origin.customData == .object(["port": 80]))
    }
}
