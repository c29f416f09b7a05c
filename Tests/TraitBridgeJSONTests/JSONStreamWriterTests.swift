import Testing
import TraitBridgeJSON

/// The stream writer checks 8 bytes at a time whether a string needs escaping; a byte it missed
/// would make the payload not JSON, or a different string.
@Suite("JSON stream writer")
struct JSONStreamWriterTests {
    @Test("every ASCII character, at every place of strings up to 24 bytes, reads back as written")
    func escapingAtEveryPlace() throws {
        var checked = 0
        for length in 1...24 {
            for place in 0..<length {
                for code in UInt8(1)..<0x80 {
                    var scalars = Array(repeating: UInt8(ascii: "a"), count: length)
                    scalars[place] = code
                    let text = String(decoding: scalars, as: UTF8.self)
                    var writer = JSONStreamWriter()
                    writer.beginObject()
                    writer.member("k", text)
                    writer.key("x", dot: text)
                    writer.int(1)
                    writer.endObject()
                    let root = try JSONDocument.parse(writer.bytes).root
                    #expect(root["k"]?.string == text, "\(code) at \(place) of \(length)")
                    #expect(root["x." + text]?.int64 == 1, "\(code) at \(place) of \(length) in a dotted key")
                    checked += 1
                }
            }
        }
        #expect(checked == 300 * 127)
    }

    @Test("UTF-8 beyond ASCII is copied as it is")
    func unicode() throws {
        var writer = JSONStreamWriter()
        writer.beginObject()
        writer.member("name", "Küche — Licht \u{1F4A1} \"hell\"\n")
        writer.endObject()
        #expect(try JSONDocument.parse(writer.bytes).root["name"]?.string == "Küche — Licht \u{1F4A1} \"hell\"\n")
    }
}
