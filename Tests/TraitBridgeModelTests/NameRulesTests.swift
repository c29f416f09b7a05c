import Testing
import TraitBridgeModel

@Suite("HomeKit naming rules")
struct NameRulesTests {
    @Test("accepted names", arguments: ["Kitchen", "Kid's Room", "Kid’s Room", "2nd Floor", "Küche", "Salle à manger", "A"])
    func accepted(_ name: String) throws {
        try NameRules.validate(name, kind: .room)
    }

    @Test(
        "refused names say which character broke which rule",
        arguments: [
            ("", "room name is empty; use letters, digits, spaces and apostrophes, starting with a letter or digit"),
            (" Kitchen", "room name ' Kitchen' starts with ' '; use letters, digits, spaces and apostrophes, starting with a letter or digit"),
            ("'Attic", "room name ''Attic' starts with '''; use letters, digits, spaces and apostrophes, starting with a letter or digit"),
            ("Living-Room", "room name 'Living-Room' has '-' at position 7; use letters, digits, spaces and apostrophes, starting with a letter or digit"),
            ("Hall/Up", "room name 'Hall/Up' has '/' at position 5; use letters, digits, spaces and apostrophes, starting with a letter or digit"),
        ]
    )
    func refused(_ name: String, message: String) {
        do {
            try NameRules.validate(name, kind: .room)
            Issue.record("'\(name)' must be refused")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("uniqueness ignores case, spaces and apostrophes")
    func uniqueness() throws {
        let existing = ["Kid's Room", "Kitchen"]
        for clash in ["kids room", "KIDSROOM", "Kid’s  Room", "kitchen"] {
            #expect(throws: NameError.self, "\(clash)") { try NameRules.validateUnique(clash, kind: .room, among: existing) }
        }
        try NameRules.validateUnique("Kids Den", kind: .room, among: existing)
        #expect(NameRules.comparisonKey("Kid’s Room") == "kidsroom")
    }
}
