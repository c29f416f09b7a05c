import Testing
import TraitBridgeJSON

@Suite("JSONDocument parsing")
struct JSONDocumentTests {
    @Test("typed access reads each kind and refuses the others")
    func typedAccess() throws {
        let document = try JSONDocument.parse(#"{"state":"ON","brightness":254,"temp":21.5,"ok":true,"none":null,"list":[1,2,3]}"#)
        let root = document.root
        #expect(root.kind == .object)
        #expect(root["state"]?.string == "ON")
        #expect(root["state"]?.isString("ON") == true)
        #expect(root["state"]?.isString("OFF") == false)
        #expect(root["brightness"]?.int64 == 254)
        #expect(root["brightness"]?.string == nil)
        #expect(root["temp"]?.double == 21.5)
        #expect(root["temp"]?.int64 == nil, "a fraction is not an integer")
        #expect(root["ok"]?.bool == true)
        #expect(root["none"]?.isNull == true)
        #expect(root["missing"] == nil)
        #expect(root["list"]?.count == 3)
        #expect(root["list"]?[2]?.int64 == 3)
        #expect(root["list"]?[3] == nil)
        #expect(root["list"]?[-1] == nil)
        #expect(root["state"]?["x"] == nil, "a string has no members")
    }

    @Test("members keep text order")
    func memberOrder() throws {
        let document = try JSONDocument.parse(#"{"z":1,"a":2,"m":3}"#)
        #expect(document.root.members.map(\.key) == ["z", "a", "m"])
    }

    @Test("top-level scalars parse, including a bare number and null")
    func scalars() throws {
        #expect(try JSONDocument.parse("42").root.int64 == 42)
        #expect(try JSONDocument.parse("  -7 \n").root.int64 == -7)
        #expect(try JSONDocument.parse("null").root.isNull)
        #expect(try JSONDocument.parse(#""online""#).root.string == "online")
        #expect(try JSONDocument.parse("true").root.bool == true)
    }

    @Test("integers at and beyond the 64-bit edges never wrap")
    func integerEdges() throws {
        let root = try JSONDocument.parse(
            #"[9223372036854775807, -9223372036854775808, 18446744073709551615, 1e400, 3.0]"#
        ).root
        #expect(root[0]?.int64 == Int64.max)
        #expect(root[1]?.int64 == Int64.min)
        #expect(root[1]?.uint64 == nil)
        #expect(root[2]?.int64 == nil, "UInt64.max does not fit Int64")
        #expect(root[2]?.uint64 == UInt64.max)
        #expect(root[3]?.int64 == nil)
        #expect(root[4]?.int64 == 3, "an integral double is an integer value")
        #expect(root[4]?.isInteger == false)
    }

    @Test("strings with escapes, unicode and embedded NUL keep every byte")
    func strings() throws {
        let root = try JSONDocument.parse(#"["a\"b\\c\n", "K\u00fcche \u2019s", "x\u0000y"]"#).root
        #expect(root[0]?.string == "a\"b\\c\n")
        #expect(root[1]?.string == "Küche ’s")
        #expect(root[2]?.string?.utf8.count == 3)
    }

    @Test("paths reach nested values")
    func paths() throws {
        let root = try JSONDocument.parse(#"{"devices":[{"traits":["a","b"]},{"traits":["c","d"]}]}"#).root
        #expect(root[path: "devices[1].traits[1]"]?.string == "d")
        #expect(root[path: "devices[2].traits[0]"] == nil)
        #expect(root[path: .root]?.kind == .object)
    }

    @Test("parsing from bytes equals parsing from a string")
    func bytes() throws {
        let text = #"{"a":[1,{"b":"c"}]}"#
        let fromBytes = try JSONDocument.parse(Array(text.utf8)).root.value
        let fromString = try JSONDocument.parse(text).root.value
        #expect(fromBytes == fromString)
    }

    @Test("tokeners are reused: good and bad texts in turn, from four threads at once, each parsed as if alone")
    func pooledTokeners() async throws {
        let texts: [(text: String, valid: Bool)] = [
            (#"{"temperature":21.5,"linkquality":100}"#, true), (#"{"a":[1,2,"#, false),
            (#"[1,{"b":"\u00e9"}]"#, true), (#"{"a":1}}"#, false), ("12", true),
            (String(repeating: "[", count: 70) + String(repeating: "]", count: 70), false), ("\"x\"", true),
        ]
        let expected = texts.map { entry in entry.valid ? try? JSONDocument.parse(entry.text).root.value : nil }
        let wrong = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<2_000 {
                        let index = (round + worker) % texts.count
                        let parsed = try? JSONDocument.parse(Array(texts[index].text.utf8)).root.value
                        if parsed != expected[index] || (parsed == nil) == texts[index].valid { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }
}
