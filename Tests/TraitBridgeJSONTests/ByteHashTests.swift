import Testing
import TraitBridgeJSON
import TraitBridgeTesting

/// `ByteHash` stands in for the bytes the bridge last published: it must change whenever they do.
@Suite struct ByteHashTests {
    @Test("the same bytes hash the same, whatever buffer holds them")
    func sameBytesSameHash() {
        let text = Array(#"{"traits":{"OnOff":{"onOff":true}}}"#.utf8)
        #expect(ByteHash.hash(text) == ByteHash.hash(Array(text)))
        #expect(ByteHash.hash(Array(text[0..<20])) == ByteHash.hash(Array(text.prefix(20))))
        #expect(ByteHash.hash([]) == ByteHash.hash([]))
    }

    @Test("one changed byte at any offset of any length changes the hash")
    func everyByteCounts() {
        var generator = SeededGenerator(seed: 0xB7_7E5)  // seeded: a failure is the same on every run
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
            let hash = ByteHash.hash(bytes)
            for offset in 0..<length {
                var changed = bytes
                changed[offset] ^= UInt8.random(in: 1...0xFF, using: &generator)
                #expect(ByteHash.hash(changed) != hash, "length \(length), byte \(offset)")
            }
        }
    }

    @Test("a trailing zero byte and a longer run of zeros are told apart")
    func lengthCounts() {
        var seen: Set<Int> = []
        for length in 0...64 { seen.insert(ByteHash.hash([UInt8](repeating: 0, count: length))) }
        #expect(seen.count == 65)
    }
}
