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

    @Test("literal keys and words, and dotted strings, write what the general calls write")
    func literals() throws {
        var literal = JSONStreamWriter(capacity: 1)
        var general = JSONStreamWriter(capacity: 1)
        literal.beginObject()
        general.beginObject()
        literal.member(literal: "id", "a\"b")
        general.member("id", "a\"b")
        literal.key(literal: "connectivityState")
        literal.string(literal: "partiallyOnline")
        general.member("connectivityState", "partiallyOnline")
        literal.key(literal: "type")
        literal.string("vendor.acme", dot: "Filter\nLife")
        general.member("type", "vendor.acme.Filter\nLife")
        literal.key(literal: "")
        literal.string(literal: "")
        general.member("", "")
        literal.key(literal: "k")  // one character: a literal that may be held as a scalar
        literal.string(literal: "é")
        general.member("k", "é")
        literal.endObject()
        general.endObject()
        #expect(literal.bytes == general.bytes)
        let root = try JSONDocument.parse(literal.bytes).root
        #expect(root["type"]?.string == "vendor.acme.Filter\nLife")
        #expect(root["connectivityState"]?.string == "partiallyOnline")
    }

    @Test("UTF-8 beyond ASCII is copied as it is")
    func unicode() throws {
        var writer = JSONStreamWriter()
        writer.beginObject()
        writer.member("name", "Küche — Licht \u{1F4A1} \"hell\"\n")
        writer.endObject()
        #expect(try JSONDocument.parse(writer.bytes).root["name"]?.string == "Küche — Licht \u{1F4A1} \"hell\"\n")
    }

    @Test("integers at the edges of Int64 and of each digit count are written as JSONValue writes them")
    func integers() throws {
        var values: [Int64] = [0, -1, 1, .max, .min, .max - 1, .min + 1]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, -power, -(power - 1)]
        }
        var writer = JSONStreamWriter(capacity: 1)
        writer.beginArray()
        for value in values { writer.int(value) }
        writer.endArray()
        #expect(writer.bytes == JSONValue.array(values.map(JSONValue.int)).serializedBytes())
        #expect(writer.bytes == Array(("[" + values.map(String.init).joined(separator: ",") + "]").utf8))
    }

    @Test("a writer made with room for one byte grows to 10 000 members and reads back whole")
    func growth() throws {
        var writer = JSONStreamWriter(capacity: 1)
        writer.beginObject()
        for index in 0..<10_000 {
            writer.key("k\(index)")
            writer.beginObject()
            writer.member("v", String(repeating: "x", count: index % 40) + "\"\(index)")
            writer.key("b")
            writer.bool(index.isMultiple(of: 2))
            writer.endObject()
        }
        writer.endObject()
        let root = try JSONDocument.parse(writer.bytes).root
        #expect(root["k9999"]?["v"]?.string == String(repeating: "x", count: 9999 % 40) + "\"9999")
        #expect(root["k42"]?["b"]?.bool == true)
        #expect(root["k43"]?["b"]?.bool == false)
        #expect(root.count == 10_000)
    }
}
