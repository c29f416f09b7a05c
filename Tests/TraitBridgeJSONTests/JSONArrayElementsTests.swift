import Foundation
import Testing
import TraitBridgeJSON

/// `forEachElement(ofArray:)` reads zigbee2mqtt's device list one entry at a time; it must agree
/// with a whole parse on every text: the same elements, the same refusals, the same positions.
@Suite("JSON arrays read element by element")
struct JSONArrayElementsTests {
    /// The elements (serialized), or the error, or nil for "not an array".
    func streamed(_ text: String, maxDepth: Int = 64) -> Result<[String]?, JSONParseError> {
        var elements: [String] = []
        return Result { () throws(JSONParseError) -> [String]? in
            let isArray = try JSONDocument.forEachElement(ofArray: Array(text.utf8), maxDepth: maxDepth) {
                index, element in
                #expect(index == elements.count)
                elements.append(String(decoding: element.value.serializedBytes(), as: UTF8.self))
            }
            return isArray ? elements : nil
        }
    }

    func whole(_ text: String, maxDepth: Int = 64) -> Result<[String]?, JSONParseError> {
        Result { () throws(JSONParseError) -> [String]? in
            let root = try JSONDocument.parse(text, maxDepth: maxDepth).root
            guard root.kind == .array else { return nil }
            return root.elements.map { String(decoding: $0.value.serializedBytes(), as: UTF8.self) }
        }
    }

    @Test(
        "valid arrays give the elements a whole parse gives",
        arguments: [
            "[]", " [ ] ", "[1]", "[1,2,3]", "\n[ {\"a\": [1, {\"b\": \"]\"}]}, \"x,y\", null , true,-1.5e3 ]\n",
            #"["a\"]", "\\", "{", "}"]"#, "[[[]]]", #"[{"friendly_name":"Hall, \"main\" [1]"}]"#,
        ])
    func validArrays(text: String) throws {
        let expected = try whole(text).get()
        #expect(expected != nil)
        #expect(try streamed(text).get() == expected)
    }

    @Test(
        "a text that is not an array is left to a whole parse",
        arguments: ["{}", "1", "\"[\"", "null", "  {\"a\":[1]}"])
    func notArrays(text: String) throws {
        #expect(try streamed(text).get() == nil)
    }

    @Test(
        "a broken array is refused at the same line and column as a whole parse",
        arguments: [
            "[", "[1", "[1,", "[1,]", "[,1]", "[1 2]", "[1]x", "[1],", "[\"abc]", "[{\"a\":1]", "[1}]", "['a']",
            "[NaN]",
            "[1,\n  {\"a\": tru}]", "[\n\"ok\",\n\"\\u12\"]", "[1]\n\n  ]", "[{]}",
        ])
    func brokenArrays(text: String) {
        let wholeError = whole(text)
        let streamError = streamed(text)
        guard case .failure(let expected) = wholeError else {
            Issue.record("a whole parse accepted \(text)")
            return
        }
        guard case .failure(let error) = streamError else {
            Issue.record("read element by element, \(text) was accepted")
            return
        }
        #expect(error.line == expected.line, "\(text): \(error) vs \(expected)")
        // Where the element scan stops first, the column may differ by what it reports; the
        // line never does, and the error is never past the end.
        #expect(error.byteOffset <= text.utf8.count)
    }

    @Test("depth: the array counts as one level, as in a whole parse")
    func depth() throws {
        let nested = "[" + String(repeating: "[", count: 9) + String(repeating: "]", count: 9) + "]"
        #expect(try whole(nested, maxDepth: 10).get() != nil)
        #expect(try streamed(nested, maxDepth: 10).get() != nil)
        #expect(throws: JSONParseError.self) { try whole(nested, maxDepth: 9).get() }
        #expect(throws: JSONParseError.self) { try streamed(nested, maxDepth: 9).get() }
    }

    @Test("a real zigbee2mqtt device list, and every cut of it, agree with a whole parse")
    func corpusList() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../shared/corpus/zigbee2mqtt/matterbridge-bridge-devices-35.payload.json")
            .standardized
        guard let data = try? Data(contentsOf: url) else {
            print("skipped: ../shared/corpus is not beside the repository (\(url.path))")
            return
        }
        let text = String(decoding: data, as: UTF8.self)
        let expected = try whole(text, maxDepth: 128).get()
        #expect(expected?.count == 35)
        #expect(try streamed(text, maxDepth: 128).get() == expected)
        // Cut anywhere: both refuse (or, cut after the closing bracket, both accept).
        let bytes = Array(text.utf8)
        for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 300)) {
            let prefix = String(decoding: bytes[..<cut], as: UTF8.self)
            switch (whole(prefix, maxDepth: 128), streamed(prefix, maxDepth: 128)) {
            case (.success(let a), .success(let b)): #expect(a == b)
            case (.failure, .failure): break
            case (.failure, .success(nil)): break  // not even a bracket yet: left to a whole parse
            case (let a, let b): Issue.record("cut at \(cut): whole \(a), element by element \(b)")
            }
        }
    }

    @Test(
        "memberRange finds a top-level member's value without parsing: strings, nesting and escapes skipped",
        arguments: [
            (#"{"message_id":"1","result":[1,{"a":"}"}]}"#, #"[1,{"a":"}"}]"#),
            (#"{ "result" : [] , "x": 2 }"#, "[]"),
            (#"{"x":{"result":[9]},"result":"r,}"}"#, #""r,}""#),
            (#"{"a":"\"result\":1","result":null}"#, "null"),
            (#"{"x":1}"#, nil), (#"[1]"#, nil), (#"{"result""#, nil), (#"{"x":[}"#, nil), ("", nil),
        ] as [(String, String?)])
    func memberRange(_ text: String, _ expected: String?) {
        let bytes = Array(text.utf8)
        let found = JSONDocument.memberRange("result", inObject: bytes).map {
            String(decoding: bytes[$0], as: UTF8.self)
        }
        #expect(found == expected)
    }

    @Test(
        "memberRanges lists every top-level member with its value's bytes; nil for escaped keys or a cut text",
        arguments: [
            (#"{"a":1,"b" : [1,{"c":"}"}] ,"a":"x"}"#, #"a=1;b=[1,{"c":"}"}];a="x""#),
            (#" { } "#, ""), (#"{"p":{"devices":[]}}"#, #"p={"devices":[]}"#),
            (#"{"a\"b":1}"#, nil), (#"{"a":1"#, nil), (#"{"a":1,}"#, nil), (#"[1]"#, nil), ("", nil),
        ] as [(String, String?)])
    func memberRanges(_ text: String, _ expected: String?) {
        let bytes = Array(text.utf8)
        let found = bytes.withUnsafeBytes { buffer in
            JSONDocument.memberRanges(inObject: buffer).map { members in
                members.map { "\($0.key)=\(String(decoding: bytes[$0.value], as: UTF8.self))" }.joined(separator: ";")
            }
        }
        #expect(found == expected)
    }
}
