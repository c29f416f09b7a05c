import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeTesting

@testable import TraitBridgeCloud

/// Reading a SYNC element by element must decide exactly what reading it whole decides: the same
/// devices, the same problems at the same paths, the same error for a text that is not a SYNC.
@Suite("SYNC reading: element by element equals whole")
struct SyncReadingTests {
    let c2c = CloudFixtures.c2c

    /// Both readings of `text`: the import's description, or the error's.
    func outcomes(_ bytes: [UInt8]) -> (byElement: String, whole: String, equal: Bool) {
        func read(_ reading: SyncReading) -> Result<SyncImport, CloudError> {
            Result { () throws(CloudError) in
                try c2c.importSync(bytes, source: "test", now: CloudFixtures.now, reading: reading)
            }
        }
        let (byElement, whole) = (read(.elementByElement), read(.whole))
        let equal: Bool
        switch (byElement, whole) {
        case (.success(let a), .success(let b)): equal = a == b
        case (.failure(let a), .failure(let b)): equal = "\(a)" == "\(b)"
        default: equal = false
        }
        return ("\(byElement)".prefix(400).description, "\(whole)".prefix(400).description, equal)
    }

    static let light =
        #"{"id":"l1","type":"action.devices.types.LIGHT","traits":["action.devices.traits.OnOff"],"#
        + #""name":{"name":"Hall"},"willReportState":true}"#

    @Test(
        "the three shapes, duplicates, problems, and texts that are not a SYNC",
        arguments: [
            #"{"requestId":"r","payload":{"agentUserId":"u","devices":[L,L,{"id":"x"},7]}}"#,
            #"{"agentUserId":"u","devices":[L, {"id":"l2","type":"action.devices.types.NOPE"}]}"#,
            #"[L]"#, #" [ ] "#, #"{"payload":{"devices":[]}}"#,
            #"{"payload":{"devices":[L]},"payload":{"devices":[]}}"#,
            #"{"payload":{"dev\u0069ces":[L]}}"#, #"{"payload":[],"devices":[L]}"#,
            #"{"payload":{"devices":[L,]}}"#, #"{"payload":{"devices":[L]}"#, #"{"payload":{"devices":[L]}} x"#,
            #"{"requestId":tru,"payload":{"devices":[L]}}"#, #"{"payload":{"devices":{}}}"#, #"{"x":1}"#,
            #"{"payload":{"devices":[L,{"id":"\ud800"}]}}"#, #"{"payload":{"devices":[L]},"requestId":"\u0000"}"#,
        ])
    func shapes(_ template: String) {
        let text = template.replacingOccurrences(of: "L", with: Self.light)
        let result = outcomes(Array(text.utf8))
        #expect(result.equal, "by element: \(result.byElement)\nwhole: \(result.whole)")
    }

    @Test("the usual shapes are read element by element; repeated or escaped keys are read whole")
    func taken() {
        func byElement(_ template: String) -> Bool {
            let text = template.replacingOccurrences(of: "L", with: Self.light)
            var list = SyncDeviceList(c2c: c2c, now: CloudFixtures.now)
            return c2c.importSyncByElement(Array(text.utf8), into: &list) { _ in }
        }
        #expect(byElement(#"{"requestId":"r","payload":{"agentUserId":"u","devices":[L,L]}}"#))
        #expect(byElement(#" {"devices":[L]} "#))
        #expect(byElement(#"[L,L]"#))
        #expect(!byElement(#"{"payload":{"devices":[L]},"payload":{"devices":[]}}"#))
        #expect(!byElement(#"{"payload":{"dev\u0069ces":[L]}}"#))
        #expect(!byElement(#"{"payload":{"devices":[L,]}}"#))
    }

    @Test("devices handed on one by one are those kept, in order; a list broken partway hands on those before it")
    func handedOn() throws {
        let light = { (id: String) in Self.light.replacingOccurrences(of: #""l1""#, with: #""\#(id)""#) }
        let text = #"{"payload":{"devices":["# + ["a", "b", "a", "c"].map(light).joined(separator: ",") + "]}}"
        var handed: [ImportedCloudDevice] = []
        let streamed = try c2c.importSync(Array(text.utf8), source: "t", now: CloudFixtures.now) { handed.append($0) }
        let kept = try c2c.importSync(Array(text.utf8), source: "t", now: CloudFixtures.now)
        #expect(streamed.devices.isEmpty)
        #expect(handed == kept.devices && handed.map(\.origin.c2cID) == ["a", "b", "c"])
        #expect(streamed.problems == kept.problems && kept.problems.count == 1, "the second 'a' is refused")

        let broken = #"{"payload":{"devices":["# + light("a") + "," + light("b") + #",{"id":tru}]}}"#
        var before: [String] = []
        #expect(throws: CloudError.self) {
            try c2c.importSync(Array(broken.utf8), source: "t", now: CloudFixtures.now) {
                before.append($0.origin.c2cID)
            }
        }
        #expect(before == ["a", "b"])
        let whole = outcomes(Array(broken.utf8))
        #expect(whole.equal && whole.whole.contains("not JSON"), "\(whole.whole)")
    }

    /// json-c counts nesting from the whole text's root; a list two levels down leaves its
    /// elements two levels less.
    @Test("a device nested up to the depth bound and one past it")
    func depth() {
        for (prefix, suffix) in [(#"{"payload":{"devices":["#, "]}}"), (#"{"devices":["#, "]}"), ("[", "]")] {
            var accepted: [Int] = []
            for nesting in 119...127 {
                let deep = String(repeating: "[", count: nesting) + String(repeating: "]", count: nesting)
                let bytes = Array((prefix + Self.light.dropLast() + #","customData":{"x":\#(deep)}}"# + suffix).utf8)
                let result = outcomes(bytes)
                #expect(
                    result.equal, "\(prefix) at \(nesting): by element: \(result.byElement)\nwhole: \(result.whole)")
                if (try? c2c.importSync(bytes, source: "test", now: CloudFixtures.now, reading: .whole)) != nil {
                    accepted.append(nesting)
                }
            }
            // The bound lies inside the range tried: both sides of it were compared.
            #expect(!accepted.isEmpty && accepted.count < 9, "\(prefix): accepted at \(accepted)")
        }
    }

    @Test(
        "every Google SYNC file of the corpus reads the same both ways",
        .enabled(if: CloudFixtures.paths.corpus != nil, "../shared/corpus is not present"))
    func corpus() throws {
        let folder = try #require(CloudFixtures.paths.corpus) + "/google-sync"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(files.count > 10)
        for file in files {
            let bytes = try #require(FileManager.default.contents(atPath: folder + "/" + file)).map { $0 }
            let result = outcomes(bytes)
            #expect(result.equal, "\(file): by element: \(result.byElement)\nwhole: \(result.whole)")
        }
    }
}
