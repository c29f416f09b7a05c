import Testing
import TraitBridgeJSON
import TraitBridgeTesting

@Suite("JSON parse errors")
struct JSONParseErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let text: String
        let line: Int
        let column: Int
        var testDescription: String { text.debugDescription }
    }

    @Test(
        "malformed input reports the line and column of the first bad character",
        arguments: [
            Case(text: "{\"a\": 1,\n  \"b\": }", line: 2, column: 8),
            Case(text: "{\"a\": tru}", line: 1, column: 10),
            Case(text: "[1, 2,]", line: 1, column: 7),
            Case(text: "{\"a\":1} x", line: 1, column: 9),
            Case(text: "{\n\"k\": \"Küche\",\n\"v\": 'x'}", line: 3, column: 6),
            Case(text: "", line: 1, column: 1),
            Case(text: "{\"a\": [1, 2", line: 1, column: 12),
            Case(text: "// comment\n{}", line: 1, column: 1),
        ]
    )
    func location(_ example: Case) {
        #expect(throws: JSONParseError.self) { try JSONDocument.parse(example.text) }
        do {
            _ = try JSONDocument.parse(example.text)
        } catch {
            #expect(error.line == example.line, "\(error)")
            #expect(error.column == example.column, "\(error)")
            #expect(!error.reason.isEmpty)
        }
    }

    @Test("non-JSON numbers and literals are refused (strict mode)")
    func strict() {
        for text in ["NaN", "Infinity", "[01]", "{'a':1}", "[1,]", "{\"a\":1,}", "undefined"] {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONDocument.parse(text) }
        }
    }

    @Test("invalid UTF-8 is refused")
    func invalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONDocument.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test("deep nesting is refused with a clear reason instead of exhausting the stack")
    func deepNesting() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        do {
            _ = try JSONDocument.parse(text)
            Issue.record("100 000 nested arrays must be refused")
        } catch {
            #expect(error.reason.contains("nesting deeper than 64"))
            #expect(error.line == 1)
            #expect(error.column == 65)
        }
        #expect(throws: Never.self) { try JSONDocument.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)) }
    }

    @Test("the error text names line, column and reason")
    func description() {
        let error = JSONParseError(reason: "unexpected end of input", line: 3, column: 9, byteOffset: 40)
        #expect(error.description == "3:9: invalid JSON: unexpected end of input")
    }

    @Test("random bytes never crash the parser", arguments: 0..<4)
    func fuzz(seed: Int) {
        var generator = SeededGenerator(seed: UInt64(seed))
        let alphabet = Array("{}[]\",:0123456789.eE+-truefalsnl \\u\n".utf8)
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 64)
            let bytes = (0..<length).map { _ in
                generator.next() % 5 == 0 ? UInt8(truncatingIfNeeded: generator.next()) : alphabet[Int(generator.next() % UInt64(alphabet.count))]
            }
            if let document = try? JSONDocument.parse(bytes) {
                _ = document.root.value.serialized()
            }
        }
    }
}
