/// Matter's base-38 (Core §5.1.3; connectedhomeip `Base38Encode.cpp`/`Base38Decode.cpp`): the QR
/// code's text form of its bytes, in the alphanumeric characters a QR code stores compactly. Each
/// 3-byte little-endian chunk becomes 5 characters, least significant digit first; a 2-byte tail
/// becomes 4 and a 1-byte tail 2.
enum Base38 {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-.")

    /// Characters per chunk of 1, 2 or 3 bytes (index = byte count).
    private static let charactersPerChunk = [0, 2, 4, 5]

    static func encode(_ bytes: [UInt8]) -> String {
        var text = ""
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = bytes[start..<min(start + 3, bytes.count)]
            var value = chunk.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            for _ in 0..<charactersPerChunk[chunk.count] {
                text.append(alphabet[Int(value % 38)])
                value /= 38
            }
        }
        return text
    }

    /// The bytes of `text`, every character and chunk checked.
    /// - Throws: ``SetupPayloadError/invalidCharacter(_:offset:)``, ``SetupPayloadError/invalidLength(_:)``,
    ///   ``SetupPayloadError/chunkOutOfRange(offset:)``.
    static func decode(_ text: [Character]) throws(SetupPayloadError) -> [UInt8] {
        let tail = text.count % 5
        guard tail == 0 || tail == 2 || tail == 4 else { throw .invalidLength(text.count) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 5 * 3 + 2)
        for start in stride(from: 0, to: text.count, by: 5) {
            let chunk = text[start..<min(start + 5, text.count)]
            var value: UInt32 = 0
            for (offset, character) in zip(chunk.indices, chunk).reversed() {
                guard let digit = index(of: character) else { throw .invalidCharacter(character, offset: offset) }
                value = value * 38 + digit
            }
            let byteCount = charactersPerChunk.firstIndex(of: chunk.count) ?? 0
            guard value < UInt32(1) << (8 * byteCount) else { throw .chunkOutOfRange(offset: start) }
            for index in 0..<byteCount { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
        }
        return bytes
    }

    /// The digit of an alphabet character, nil for anything else.
    private static func index(of character: Character) -> UInt32? {
        guard let ascii = character.asciiValue else { return nil }
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(ascii - UInt8(ascii: "0"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(ascii - UInt8(ascii: "A")) + 10
        case UInt8(ascii: "-"): return 36
        case UInt8(ascii: "."): return 37
        default: return nil
        }
    }
}
