import Testing
import TraitBridgeJSON

@Suite("JSONValue building and serialization")
struct JSONValueTests {
    @Test("compact output keeps the built key order and is byte-stable")
    func compact() {
        let value: JSONValue = ["id": "lamp", "name": "Lamp", "state": ["on": true, "level": 254], "tags": [1, 2.5, nil]]
        #expect(value.serialized() == #"{"id":"lamp","name":"Lamp","state":{"on":true,"level":254},"tags":[1,2.5,null]}"#)
        #expect(value.serializedBytes() == value.serializedBytes())
    }

    @Test("pretty output indents by two spaces and ends with a newline")
    func pretty() {
        let value: JSONValue = ["a": [1, ["b": "c"]], "empty": [:], "none": []]
        let expected = """
            {
              "a": [
                1,
                {
                  "b": "c"
                }
              ],
              "empty": {},
              "none": []
            }

            """
        #expect(value.serialized(.pretty) == expected)
    }

    @Test("strings are escaped as RFC 8259 requires")
    func escaping() {
        let value = JSONValue.string("q\"b\\s/\n\t\u{01}ü")
        #expect(value.serialized() == #""q\"b\\s/\n\t\u0001ü""#)
    }

    @Test("non-finite doubles become null and integral doubles print as integers")
    func doubles() {
        #expect(JSONValue.array([.double(.nan), .double(.infinity), .double(21.0), .double(0.1), .double(1e20)]).serialized()
            == "[null,null,21,0.1,1e+20]")
    }

    @Test("parse then serialize then parse gives the same value (corpus-like payload)")
    func roundTrip() throws {
        let text = #"{"linkquality":87,"state":"ON","color":{"x":0.3,"y":0.31},"update":{"state":"idle"},"list":[true,false,null,"é"]}"#
        let first = try JSONDocument.parse(text).root.value
        let second = try JSONDocument.parse(first.serialized()).root.value
        #expect(first == second)
        #expect(first.serialized() == text)
    }

    @Test("object members can be replaced in place and removed")
    func objectEditing() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = 3
        object["c"] = 4
        object["b"] = nil
        object.setIfPresent("d", nil)
        #expect(object.keys == ["a", "c"])
        #expect(JSONValue.object(object).serialized() == #"{"a":3,"c":4}"#)
    }
}

@Suite("JSONPath and JSONSourceMap")
struct JSONPathTests {
    @Test("paths print and parse back", arguments: ["devices[3].traits[1]", "$", "a.b.c", #"attributes["color.temp"]"#, "[0][1].x"])
    func roundTrip(_ text: String) throws {
        let path = try #require(JSONPath(parsing: text == "$" ? "" : text))
        #expect(path.description == text)
    }

    @Test("malformed paths are refused", arguments: ["a..b", "a[", "a[x]", ".a", "a.", "a[1]b"])
    func malformed(_ text: String) {
        #expect(JSONPath(parsing: text) == nil)
    }

    @Test("the source map finds a nested value's line and column")
    func sourceMap() {
        let text = """
            {
              "traits": [
                {"id": "matter.OnOff", "name": "x"},
                {"id": "bad id", "attributes": [ {"name": "a"}, {"name": "B"} ]}
              ]
            }
            """
        let map = JSONSourceMap(text: text)
        #expect(map.location(of: "traits[1].id") == SourceLocation(line: 4, column: 12))
        #expect(map.location(of: "traits[1].attributes[1].name") == SourceLocation(line: 4, column: 62))
        #expect(map.location(of: "traits[0]") == SourceLocation(line: 3, column: 5))
        // A missing key points at the deepest part of the path that exists.
        #expect(map.location(of: "traits[0].clusterId") == SourceLocation(line: 3, column: 5))
        #expect(map.location(of: .root) == SourceLocation(line: 1, column: 1))
    }

    @Test("the source map follows json-c: the last duplicate key wins")
    func duplicateKeys() throws {
        let text = #"{"a": 1, "a": 2}"#
        #expect(try JSONDocument.parse(text).root["a"]?.int64 == 2)
        #expect(JSONSourceMap(text: text).location(of: "a") == SourceLocation(line: 1, column: 15))
    }
}
