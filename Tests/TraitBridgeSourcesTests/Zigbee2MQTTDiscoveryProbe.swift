import Testing
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources

@Test func probeDiscovery() throws {
    let (devices, problems) = try SourceFixtures.zigbee2mqtt().discover(SourceFixtures.corpusJSON("zigbee2mqtt/matterbridge-bridge-devices-35.payload.json"))
    print("devices", devices.count, "problems", problems)
    for d in devices {
        print(d.friendlyName, "|", d.device.id, "|", d.device.deviceTypes.map { "\($0.key)=\($0.typeID)\($0.isPrimaryType ? "*" : "")[\($0.traits.map(\.traitID.name).joined(separator: ","))]" }.joined(separator: " "), "| keys:", d.bindings.keys.sorted())
    }
}
