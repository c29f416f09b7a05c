import Foundation
import Testing
import TraitBridgeCloud
import TraitBridgeModel

@testable import TraitBridgeEngine

@Suite("Cloud import index: imported devices and the devices they are on")
struct CloudImportIndexTests {
    static func runtime(_ c2cID: String, link: String = "p", on target: String? = nil) throws -> CloudRuntime {
        let own = try DeviceID("c2c-" + c2cID)
        return CloudRuntime(
            origin: CloudDeviceOrigin(c2cID: c2cID, type: "action.devices.types.LIGHT", traits: []),
            source: SourceReference(family: "google-c2c", instance: link, nativeID: c2cID), identity: DeviceIdentity(),
            ownID: own, target: try target.map(DeviceID.init) ?? own, keys: [], types: [])
    }

    @Test("the inverse follows every set, move and removal: no caller keeps it in step")
    func inverseInStep() throws {
        var index = CloudImportIndex()
        let lamp = try DeviceID("z2m-lamp")
        index.set("a", try Self.runtime("a"))
        index.set("b", try Self.runtime("b", on: "z2m-lamp"))
        #expect(index.ids(on: try DeviceID("c2c-a")) == ["a"])
        #expect(index.ids(on: lamp) == ["b"])

        index.modify("a") { $0.target = lamp }  // a standalone device merges into the lamp
        #expect(index.ids(on: try DeviceID("c2c-a")).isEmpty, "nothing left on its own id")
        #expect(index.ids(on: lamp) == ["a", "b"])

        index.set("b", nil)
        #expect(index.ids(on: lamp) == ["a"])
        #expect(index["b"] == nil && index.count == 1)
        index.set("a", nil)
        #expect(index.isEmpty && index.ids(on: lamp).isEmpty)
    }

    @Test("a link's devices, sorted; a modify of an unknown id changes nothing and says so")
    func byInstance() throws {
        var index = CloudImportIndex()
        for (id, link) in [("c", "p"), ("a", "p"), ("b", "q")] { index.set(id, try Self.runtime(id, link: link)) }
        #expect(index.devices(ofInstance: "p").map(\.c2cID) == ["a", "c"])
        #expect(index.devices(ofInstance: "nobody").isEmpty)
        #expect(index.count(ofInstance: "p") == 2 && index.count(ofInstance: "q") == 1)
        index.modify("c") { $0.source.instance = "q" }  // moved to another link: the inverse follows
        #expect(index.devices(ofInstance: "q").map(\.c2cID) == ["b", "c"] && index.count(ofInstance: "p") == 1)
        index.set("c", nil)
        #expect(index.count(ofInstance: "q") == 1 && index.all.count == 2)
        #expect(index.modify("zzz") { $0.isStale = true } == nil)
        #expect(
            index.modify("a") {
                $0.isStale = true
                return 1
            } == 1)
        #expect(index["a"]?.isStale == true)
        let source = SourceReference(family: "google-c2c", instance: "q", nativeID: "b")
        #expect(index.runtime(for: source)?.origin.c2cID == "b")
        #expect(index.runtime(for: nil) == nil)
        let elsewhere = SourceReference(family: "google-c2c", instance: "p", nativeID: "b")
        #expect(index.runtime(for: elsewhere) == nil, "the same native id from another link is not it")
        var odd = try Self.runtime("z", link: "p")
        odd.source = SourceReference(family: "google-c2c", instance: "p", nativeID: "not-its-id")
        index.set("z", odd)
        #expect(index.runtime(for: odd.source)?.origin.c2cID == "z", "a reference made otherwise: found by the scan")
    }
}
