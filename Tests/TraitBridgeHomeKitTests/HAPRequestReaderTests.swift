import Testing

@testable import TraitBridgeHomeKit

/// The HAP server's HTTP/1.1 reader: whole requests only, bounded head and body, and the bytes after
/// a request left whole (after pair-verify's M3 they are the session's frames, not plaintext).
@Suite("HAP request reader")
struct HAPRequestReaderTests {
    static func request(_ path: String, body: String = "") -> [UInt8] {
        let head = "POST \(path) HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\n"
        return Array((head + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)").utf8)
    }

    @Test("requests split anywhere are read whole, in order; a partial one waits")
    func splitAnywhere() throws {
        let bytes = Self.request("/pair-verify", body: "abc") + Self.request("/pairings", body: "")
        for cut in 0...bytes.count {
            var reader = HAPRequestReader()
            let first = try reader.feed(Array(bytes[..<cut]))
            let second = try reader.feed(Array(bytes[cut...]))
            #expect((first + second).map(\.path) == ["/pair-verify", "/pairings"], "cut at \(cut)")
            #expect((first + second).first?.body == Array("abc".utf8))
        }
    }

    @Test("after one request, the rest is taken whole and not parsed: pipelined frames after M3 stay frames")
    func restAfterRequest() throws {
        var reader = HAPRequestReader()
        let frames: [UInt8] = [0x05, 0x00] + Array(repeating: 0xAB, count: 21)
        reader.append(Self.request("/pair-verify", body: "m3") + frames)
        let request = try #require(try reader.next())
        #expect(request.path == "/pair-verify" && request.body == Array("m3".utf8))
        #expect(reader.takeRest() == frames)
        #expect(try reader.next() == nil, "nothing left")
    }

    @Test("a head over 8 KB, a body over 256 KB, chunked, or not HTTP: refused with why")
    func bounds() {
        var reader = HAPRequestReader()
        #expect(throws: HAPRequestReader.ReadError.headTooLong) {
            try reader.feed(Array(repeating: UInt8(ascii: "a"), count: HAPRequestReader.headLimit + 1))
        }
        reader = HAPRequestReader()
        #expect(throws: HAPRequestReader.ReadError.bodyTooLong(300_000)) {
            try reader.feed(Array("PUT /characteristics HTTP/1.1\r\nContent-Length: 300000\r\n\r\n".utf8))
        }
        reader = HAPRequestReader()
        #expect(throws: HAPRequestReader.ReadError.self) {
            try reader.feed(Array("PUT /characteristics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
        }
        reader = HAPRequestReader()
        #expect(throws: HAPRequestReader.ReadError.self) { try reader.feed(Array("\u{16}\u{3}\u{1}\r\n\r\n".utf8)) }
    }
}
