import Foundation

/// Where the repository and `../shared` are, found from a test file's `#filePath`, so tests run
/// from any working directory and skip visibly when `../shared` is absent.
public struct TestPaths: Sendable {
    public let repository: String

    /// `filePath` is a test file at `<repository>/Tests/<Target>/<File>.swift`.
    public init(filePath: String) {
        var url = URL(fileURLWithPath: filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        repository = url.path
    }

    public var mappings: String { repository + "/mappings" }

    /// `../shared` beside the repository, when it is there.
    public var shared: String? {
        let path = URL(fileURLWithPath: repository).deletingLastPathComponent().appendingPathComponent("shared").path
        return FileManager.default.fileExists(atPath: path + "/corpus") ? path : nil
    }

    /// `../shared/corpus`, when it is there.
    public var corpus: String? { shared.map { $0 + "/corpus" } }
}

/// A small deterministic generator (SplitMix64) so fuzz cases are repeatable.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
