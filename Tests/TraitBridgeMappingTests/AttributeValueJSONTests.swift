import Testing
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

@Suite("Attribute values from JSON")
struct AttributeValueJSONTests {
    @Test(
        "read from json-c or from JSON already converted, a value is the same",
        arguments: [
            "null", "true", "0", "-7", "9223372036854775807", "9223372036854775808", "1.5", "1e3", "-0.0",
            #""é\u0000""#,
            #"[1, "a", [null, {"x": 2}]]"#, #"{"b": {"c": [1.25, false]}, "a": "x", "": 0}"#, "[]", "{}",
        ])
    func sameBothWays(_ text: String) throws {
        let root = try JSONDocument.parse(text).root
        #expect(AttributeValue(jsonValue: root.value) == AttributeValue(json: root))
    }
}
