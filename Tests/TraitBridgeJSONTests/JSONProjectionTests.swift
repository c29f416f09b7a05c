import Foundation
import Testing
@testable import TraitBridgeJSON
import TraitBridgeTesting

/// A projected parse builds only the members a reader uses (zigbee2mqtt's device entries); the
/// rest must still be JSON, refused exactly as a whole parse refuses it.
@Suite("JSON read through a projection")
struct JSONProjectionTests {
    static var projection: JSONProjection {  // not a global: see Zigbee2MQTTSource.entryProjection
        .members(["a": .all, "b": .allExcept(["c"]), "e": .members(["f": .all])])
    }

    func projected(_ text: String, _ projection: JSONProjection = projection) -> Result<String, JSONParseError> {
        Result { () throws(JSONParseError) -> String in
            let document = try JSONDocument.parse(Array(text.utf8), projection: projection)
            return String(decoding: document.root.value.serializedBytes(), as: UTF8.self)
        }
    }

    func whole(_ text: String) -> Result<String, JSONParseError> {
        Result { () throws(JSONParseError) -> String in
            String(decoding: try JSONDocument.parse(text).root.value.serializedBytes(), as: UTF8.self)
        }
    }

    @Test(
        "only the named members are built; a projection reaches into arrays and below",
        arguments: [
            (#"{"a":1,"z":2}"#, #"{"a":1}"#),
            (#" { "z" : [1, {"a": 2}], "a" : { "z" : 3 } } "#, #"{"a":{"z":3}}"#),
            (#"{"b":{"c":1,"d":[{"c":2,"x":3}],"e":{"c":4}}}"#, #"{"b":{"d":[{"x":3}],"e":{}}}"#),
            (#"{"e":[{"f":1,"g":2},{"g":3},7]}"#, #"{"e":[{"f":1},{},7]}"#),
            (#"{"e":{"f":{"g":1}},"a":null}"#, #"{"e":{"f":{"g":1}},"a":null}"#),
            (#"[{"a":1,"b":2,"y":3},{"z":1}]"#, #"[{"a":1,"b":2},{}]"#),
            (#"{}"#, #"{}"#), (#"[]"#, #"[]"#), ("1.5e3", "1500"), (#""x""#, #""x""#),
        ])
    func kept(_ text: String, _ expected: String) throws {
        #expect(try projected(text).get() == expected)
    }

    @Test(
        "eachMember keeps every member, each through its own projection, and agrees with applied(to:)",
        arguments: [
            (#"{"light":{"type":"x","traits":{"t.A":{"source":"s","attributes":{"m":1}},"t.B":{}}},"l2":{"z":1}}"#,
             #"{"light":{"type":"x","traits":{"t.A":{"source":"s"},"t.B":{}}},"l2":{}}"#),
            (#"{}"#, #"{}"#), (#"{"k":[{"type":1,"y":2}]}"#, #"{"k":[{"type":1}]}"#), (#"{"k":3}"#, #"{"k":3}"#),
        ])
    func eachMember(_ text: String, _ expected: String) throws {
        let projection = JSONProjection.eachMember(
            .members(["type": .all, "traits": .eachMember(.members(["source": .all]))]))
        #expect(try projected(text, projection).get() == expected)
        let applied = projection.applied(to: try JSONDocument.parse(text).root.value)
        #expect(String(decoding: applied.serializedBytes(), as: UTF8.self) == expected)
    }

    @Test("a key written with escapes is kept whole: its name is known only once decoded")
    func escapedKeys() throws {
        #expect(try projected(#"{"\u0061":{"z":1},"\u007a":2,"y":3}"#).get() == #"{"a":{"z":1},"z":2}"#)
    }

    @Test(
        "what is dropped is still checked: the same error, at the same place, as a whole parse",
        arguments: [
            #"{"a":1,"z":[tru]}"#, #"{"z":{"y":"\x"},"a":1}"#, #"{"z":01}"#, #"{"z":[1]]}"#, #"{"z":-}"#,
            #"{"z":1e}"#, #"{"z":[1,]}"#, #"{"z":{"y":1,}}"#, #"{"z":tru}"#, #"{"z":'q'}"#,
            #"{"z":NaN}"#, #"{"z":[1 2]}"#, #"{"z":"\u12"}"#, #"{"z":1} x"#, #"{"z":1"#,
            #"{"z" 1}"#, #"{z:1}"#, #"{"a":1,}"#, "", "   ", #"{"b":{"c":[}}"#, #"{"e":{"g":[1,]}}"#,
        ])
    func refused(_ text: String) {
        guard case .failure(let expected) = whole(text) else {
            Issue.record("a whole parse accepted \(text)")
            return
        }
        guard case .failure(let error) = projected(text) else {
            Issue.record("through the projection, \(text) was accepted")
            return
        }
        #expect(error == expected, "\(text)")
    }

    /// json-c takes `1.`, control characters in strings and some byte sequences that are not
    /// UTF-8 (overlong forms, surrogates); the check refuses them, and a refused text is read whole
    /// again, so a projection never refuses what a whole parse accepts.
    @Test("odd bytes, numbers and control characters in dropped members: accepted or refused as a whole parse does")
    func whatJSONCAccepts() {
        let odd: [[UInt8]] = [
            [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82], [0xFF], [0x01], [0x09],
            Array(#"",1.,""#.utf8),
        ]
        for bad in odd {
            let bytes = Array(#"{"a":1,"z":""#.utf8) + bad + Array(#""}"#.utf8)
            let wholeResult = Result { () throws(JSONParseError) in try JSONDocument.parse(bytes) }
            let projectedResult = Result { () throws(JSONParseError) in
                try JSONDocument.parse(bytes, projection: Self.projection)
            }
            switch (wholeResult, projectedResult) {
            case (.failure(let a), .failure(let b)): #expect(a == b, "\(bad)")
            case (.success(let a), .success(let b)):
                #expect(Self.projection.applied(to: a.root.value) == Self.projection.applied(to: b.root.value))
            default: Issue.record("\(bad): whole \(wholeResult), projected \(projectedResult)")
            }
        }
    }

    @Test("nesting: the same limit as a whole parse, in dropped members too")
    func depth() {
        let deep = #"{"a":1,"z":"# + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}"
        #expect(throws: JSONParseError.self) { try whole(deep).get() }
        #expect(throws: JSONParseError.self) { try projected(deep).get() }
    }

    @Test("every one-byte change of an entry is accepted or refused as a whole parse does it")
    func mutations() throws {
        let entry =
            Array(#"{"ieee_address":"0x1","definition":{"exposes":[{"type":"binary","#.utf8)
            + Array(#""name":"state","description":"On\/off","#.utf8)
            + Array(#""value_on":"ON","access":7}],"options":[{"x":[1.5e-3,true,null]}]},"endpoints":{"1":{}}}"#.utf8)
        let projection = JSONProjection.members([
            "ieee_address": .all, "definition": .members(["exposes": .allExcept(["description"])]),
        ])
        var checked = 0
        for index in entry.indices {
            for replacement: UInt8 in [0x22, 0x2C, 0x7B, 0x5D, 0x5C, 0x31, 0x20, 0x00, 0xC3] {
                var bytes = entry
                bytes[index] = replacement
                let wholeResult = Result { () throws(JSONParseError) in try JSONDocument.parse(bytes) }
                let projectedResult = Result { () throws(JSONParseError) in
                    try JSONDocument.parse(bytes, projection: projection)
                }
                switch (wholeResult, projectedResult) {
                case (.success(let a), .success(let b)):
                    #expect(projection.applied(to: a.root.value) == projection.applied(to: b.root.value))
                case (.failure(let a), .failure(let b)): #expect(a == b)
                default:
                    Issue.record("byte \(index) → \(replacement): whole \(wholeResult), projected \(projectedResult)")
                }
                checked += 1
            }
        }
        #expect(checked == entry.count * 9)
    }

    @Test("element by element: the same elements (projected) and the same refusals as without a projection")
    func elements() throws {
        let texts = [
            #"[{"a":1,"z":2},{"b":{"c":1,"d":2}}, 3 ]"#, #"[{"a":1,"z":[tru]}]"#, #"[{"a":1} x]"#, #"[{"a":1},]"#,
            #"[{"z":"\u12"},{"a":2}]"#, "[", "[1", #"{"a":[1]}"#, "[]",
        ]
        for text in texts {
            var plain: [JSONValue] = []
            var viaProjection: [JSONValue] = []
            let a = Result { () throws(JSONParseError) in
                try JSONDocument.forEachElement(ofArray: Array(text.utf8)) { _, element in plain.append(element.value) }
            }
            let b = Result { () throws(JSONParseError) in
                try JSONDocument.forEachElement(ofArray: Array(text.utf8), projection: Self.projection) { _, element in
                    viaProjection.append(element.value)
                }
            }
            switch (a, b) {
            case (.success(let x), .success(let y)):
                #expect(x == y, "\(text)")
                #expect(plain.map(Self.projection.applied(to:)) == viaProjection, "\(text)")
            case (.failure(let x), .failure(let y)): #expect(x == y, "\(text)")
            default: Issue.record("\(text): without \(a), with \(b)")
            }
        }
    }

    @Test("a member kept as text: its text as a string, read back to the same value; bad text refused as whole")
    func text() throws {
        let source = #"{"a": {"m": {"format": "int16", "min": -5, "s": "q\"uo\\te"}, "n": [1, 2.5e3, true, null]},"#
            + "\n\t\"b\": 1}"
        let document = try JSONDocument.parse(Array(source.utf8), projection: .members(["a": .text(.all)]))
        let kept = try #require(document.root["a"]?.string)
        #expect(kept.hasPrefix(#"{"m": {"format""#), "the text as written, spaces included: \(kept)")
        let reread = try JSONDocument.parse(Array(kept.utf8)).root.value
        #expect(reread == (try JSONDocument.parse(Array(source.utf8)).root["a"]?.value))
        #expect(document.root["b"] == nil)
        // Whitespace inside the text comes back escaped, and reads again.
        let spaced = try JSONDocument.parse(Array("{\"a\":[1,\n\t2]}".utf8), projection: .members(["a": .text(.all)]))
        #expect(spaced.root["a"]?.string == "[1,\n\t2]")
        // A member whose key has escapes is kept as a value (its name is only known once decoded).
        let escaped = try JSONDocument.parse(
            Array(#"{"\u0061": {"x": 1}}"#.utf8), projection: .members(["a": .text(.all)]))
        #expect(escaped.root["a"]?["x"]?.int64 == 1)
        // A projected text: what the inner projection keeps, as text.
        let inner = try JSONDocument.parse(
            Array(#"{"a": [{"x": 1, "label": "For people"}, {"y": [2]}]}"#.utf8),
            projection: .members(["a": .text(.allExcept(["label"]))]))
        #expect(inner.root["a"]?.string == #"[{"x":1},{"y":[2]}]"#)
        for bad in [#"{"a": {"x": 01}}"#, #"{"a": [1,]}"#, #"{"a": "\x"}"#] {
            let whole = Result { () throws(JSONParseError) in try JSONDocument.parse(Array(bad.utf8)) }
            let asText = Result { () throws(JSONParseError) in
                try JSONDocument.parse(Array(bad.utf8), projection: .members(["a": .text(.all)]))
            }
            guard case .failure(let expected) = whole, case .failure(let error) = asText else {
                Issue.record("\(bad) was accepted")
                continue
            }
            #expect(error == expected)
        }
    }

    @Test("the scan eight bytes at a time stops where a byte-by-byte scan stops, at every offset and byte")
    func plainRunAgreesByteByByte() {
        var generator = SeededGenerator(seed: 0x7B_1D6E)  // seeded: a failure is the same on every run
        let stops: [UInt8] = [0x22, 0x5C, 0x00, 0x09, 0x1F, 0x80, 0xC3, 0xFF]
        for round in 0..<2_000 {
            var bytes = (0..<(round % 40)).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
            bytes.removeAll { $0 == 0x22 || $0 == 0x5C }
            if !bytes.isEmpty, round % 5 != 0 {  // one odd byte somewhere (none, one round in five)
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = stops[round % stops.count]
            }
            for start in 0...bytes.count {
                let expected = bytes[start...].firstIndex { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 || $0 >= 0x80 }
                let found = bytes.withUnsafeBytes { JSONProjector.plainRun($0, from: start) }
                guard found == expected ?? bytes.count else {
                    Issue.record("\(bytes) from \(start): \(found), expected \(expected ?? bytes.count)")
                    return
                }
            }
        }
    }

    @Test("long strings with odd bytes at every distance from a word's start: checked and kept as written")
    func longStrings() throws {
        for position in 0..<24 {
            for odd in ["é", "\\\"", "\\n", "€x", "\\u00e9"] {
                var text = String(repeating: "a", count: 24)
                text.insert(contentsOf: odd, at: text.index(text.startIndex, offsetBy: position))
                let source = #"{"a": {"s": ""# + text + #""}, "b": "x\#(text)"}"#
                let document = try JSONDocument.parse(Array(source.utf8), projection: .members(["a": .text(.all)]))
                let kept = try #require(document.root["a"]?.string)
                #expect(kept == #"{"s": ""# + text + #""}"#, "\(position) \(odd)")
                let whole = try JSONDocument.parse(Array(source.utf8)).root["b"]?.string
                let b = try JSONDocument.parse(Array(source.utf8), projection: .members(["b": .all])).root["b"]?.string
                #expect(b != nil && b == whole, "the member after it, read through the dropped one")
            }
            // A raw control character inside a string: accepted or refused as a whole parse does it.
            var bytes = Array(#"{"a": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#.utf8)
            bytes[7 + position] = 0x01
            let whole = Result { () throws(JSONParseError) in try JSONDocument.parse(bytes) }
            let projected = Result { () throws(JSONParseError) in
                try JSONDocument.parse(bytes, projection: .members(["a": .all]))
            }
            switch (whole, projected) {
            case (.failure(let a), .failure(let b)): #expect(a == b)
            case (.success(let a), .success(let b)): #expect(a.root.value == b.root.value)
            default: Issue.record("a control character at \(7 + position): whole \(whole), projected \(projected)")
            }
        }
    }
}
