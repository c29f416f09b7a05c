import Foundation
import Testing
import TraitBridgeFuzzing

/// Every crasher the fuzzer ever found (`Fuzz/crashers/<target>/`), every input of the kept
/// corpora (`Fuzz/corpus/<target>/`) and every seed is run again through its target: a bug that
/// comes back traps this test process.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let fuzz = FuzzPaths.repository + "/Fuzz"

    static func inputs(_ folder: String) -> [URL] {
        let url = URL(fileURLWithPath: folder)
        let names = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? []
        return names.filter { !$0.lastPathComponent.hasPrefix(".") && $0.lastPathComponent != "README.md" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test(
        "every crasher, corpus input and seed runs through its target without trapping", arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) throws {
        // Every crasher; of the corpus, an even spread of at most 400 inputs (all of them after
        // `make fuzz` is the long form of this test).
        let crashers = Self.inputs(Self.fuzz + "/crashers/" + target.rawValue)
        let corpus = Self.inputs(Self.fuzz + "/corpus/" + target.rawValue)
        let step = max(1, corpus.count / 400)
        let kept = crashers + stride(from: 0, to: corpus.count, by: step).map { corpus[$0] }
        for file in kept { target.run([UInt8](try Data(contentsOf: file))) }
        let seeds = FuzzSeeds.seeds(for: target)
        for seed in seeds { target.run(seed) }
        // Some targets (cloud-execute, json) take their seeds from ../shared/corpus only: without
        // it they run on Fuzz/corpus alone, as the line below says.
        #expect(!seeds.isEmpty || target == .generic || FuzzPaths.sharedCorpus == nil, "\(target.rawValue) has seeds")
        #expect(
            !kept.isEmpty, "Fuzz/corpus/\(target.rawValue) holds the inputs of earlier runs (`make fuzz` writes them)")
        if FuzzPaths.sharedCorpus == nil {
            print("skipped: ../shared/corpus is absent, so \(target.rawValue) runs without its corpus seeds")
        }
    }

    @Test("a fuzz input reads back as the messages it was written from; a record without a topic gets the default one")
    func inputFormat() {
        let messages: [(topic: String, payload: [UInt8])] = [
            ("a/b", Array("{\"x\":1}".utf8)), ("c", []), ("d", [0, 1, 2]),
        ]
        let read = FuzzInput.messages(FuzzInput.encode(messages), defaultTopic: "z")
        #expect(read.map(\.topic) == ["a/b", "c", "d"])
        #expect(read.map(\.payload) == messages.map(\.payload))
        #expect(FuzzInput.messages(Array("plain".utf8), defaultTopic: "z").map(\.topic) == ["z"])
        let many = [UInt8](repeating: 0, count: 1_000)
        #expect(FuzzInput.messages(many, defaultTopic: "z").count == FuzzInput.maximumRecords, "bounded")
    }
}
