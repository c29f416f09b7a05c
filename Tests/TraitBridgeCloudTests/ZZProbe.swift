import Testing
import Foundation
import TraitBridgeCloud
import TraitBridgeModel
import TraitBridgeTesting

@Test func probeCorpus() throws {
    let dir = CloudFixtures.paths.corpus! + "/google-sync"
    for name in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() {
        let bytes = [UInt8](FileManager.default.contents(atPath: dir + "/" + name)!)
        do {
            let r = try CloudFixtures.c2c.importSync(bytes, source: name, now: CloudFixtures.now)
            print("== \(name): \(r.devices.count) devices: " + r.devices.map { "\($0.device.id)=\($0.device.deviceTypes.map { "\($0.typeID)[\($0.traits.map(\.traitID.description).joined(separator: ","))]" }.joined())" }.joined(separator: " "))
            for p in r.problems { print("   ! \(p)") }
        } catch { print("== \(name): ERROR \(error)") }
    }
}
