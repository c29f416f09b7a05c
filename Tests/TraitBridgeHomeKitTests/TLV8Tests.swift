import Testing

@testable import TraitBridgeHomeKit

@Suite("TLV8")
struct TLV8Tests {
    @Test("a value over 255 bytes is split into fragments and joined again")
    func fragments() throws {
        var message = TLV8()
        message.append(.state, byte: 2)
        message.append(.publicKey, (0..<384).map { UInt8(truncatingIfNeeded: $0) })
        message.append(.salt, [])
        let bytes = message.encoded
        #expect(bytes.count == 3 + 2 + 255 + 2 + 129 + 2)
        let decoded = try TLV8(decoding: bytes)
        #expect(decoded == message)
        #expect(decoded[.publicKey]?.count == 384 && decoded.byte(.state) == 2 && decoded[.salt] == [])
    }

    @Test("two items of one type in a row are kept apart by a separator")
    func separators() throws {
        var message = TLV8()
        message.append(.identifier, Array("a".utf8))
        message.append(.identifier, Array("b".utf8))
        let decoded = try TLV8(decoding: message.encoded)
        #expect(decoded.items.filter { $0.tag == TLV8.Tag.identifier.rawValue }.count == 2)
    }

    @Test("a truncated item and too many items are refused, saying where")
    func bounds() {
        #expect(throws: TLV8.DecodeError.truncated(offset: 3)) { try TLV8(decoding: [6, 1, 1, 3, 10, 0]) }
        #expect(throws: TLV8.DecodeError.truncated(offset: 0)) { try TLV8(decoding: [6]) }
        let many = [UInt8]((0...TLV8.itemLimit).flatMap { [UInt8($0 % 2), 0] })
        #expect(throws: TLV8.DecodeError.tooManyItems(limit: TLV8.itemLimit)) { try TLV8(decoding: many) }
    }
}
