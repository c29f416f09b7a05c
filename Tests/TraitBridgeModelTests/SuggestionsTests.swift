import Testing

@testable import TraitBridgeModel

@Suite("Did you mean: the nearest names")
struct SuggestionsTests {
    @Test("a letter wrong, missing, added or two swapped finds the name; case, spaces and apostrophes aside")
    func nearOnes() {
        let devices = ["Hall light", "Desk lamp", "Kitchen plug", "Kid's room lamp"]
        #expect(Suggestions.nearest(to: "Hal light", among: devices) == ["Hall light"])
        #expect(Suggestions.nearest(to: "Hlal light", among: devices) == ["Hall light"])
        #expect(Suggestions.nearest(to: "desk  LAMPS", among: devices) == ["Desk lamp"])
        #expect(Suggestions.nearest(to: "kids room lamp", among: devices) == ["Kid's room lamp"])
        #expect(Suggestions.nearest(to: "togle", among: ["off", "on", "toggle"]) == ["toggle"])
        #expect(Suggestions.didYouMean("togle", among: ["off", "on", "toggle"]) == " (did you mean 'toggle'?)")
    }

    @Test("one name inside the other is near; the nearest come first, at most three")
    func containedAndOrdered() {
        let names = ["Kitchen plug", "Kitchen light", "Kitchen fan", "Kitchen blind", "Hall light"]
        #expect(Suggestions.nearest(to: "Kitchen", among: names) == ["Kitchen plug", "Kitchen light", "Kitchen fan"])
        #expect(Suggestions.nearest(to: "Kitchen ligt", among: names).first == "Kitchen light")
    }

    @Test("nothing near, nothing typed, or a hostile name: no suggestion")
    func nothing() {
        #expect(Suggestions.nearest(to: "Garage door", among: ["Hall light", "Desk lamp"]).isEmpty)
        #expect(Suggestions.didYouMean("Garage door", among: ["Hall light"]).isEmpty)
        #expect(Suggestions.nearest(to: "", among: ["Hall light"]).isEmpty)
        #expect(Suggestions.nearest(to: "   ", among: ["Hall light"]).isEmpty)
        let hostile = String(repeating: "x", count: 100_000)
        let many = (0..<20_000).map { "device \($0)" }
        #expect(Suggestions.nearest(to: hostile, among: many).isEmpty)
    }

    @Test(
        "the distance is the optimal string alignment's",
        arguments: [
            ("kitten", "sitting", 3), ("ca", "ac", 1), ("abc", "abc", 0), ("", "abc", 3), ("flaw", "lawn", 2),
        ])
    func distance(a: String, b: String, expected: Int) {
        #expect(Suggestions.editDistance(Array(a), Array(b)) == expected)
    }
}
