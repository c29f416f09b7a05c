/// HomeKit's rules for the names of homes, rooms, zones, groups and scenes.
///
/// A name holds letters, digits, spaces and apostrophes only, and starts with a letter or digit.
/// Names are unique within their namespace (homes among homes; rooms, zones, groups and scenes
/// within a home), compared case-insensitively and ignoring spaces and apostrophes, so
/// "Kid's Room" and "kids room" are the same name.
public enum NameRules {
    /// Checks the characters of a name.
    public static func validate(_ name: String, kind: NamedKind) throws(NameError) {
        guard let first = name.first else { throw .empty(kind: kind) }
        guard first.isLetter || first.isNumber else { throw .badStart(kind: kind, name: name, character: first) }
        for (offset, character) in name.enumerated()
        where !(character.isLetter || character.isNumber || character == " " || isApostrophe(character)) {
            throw .badCharacter(kind: kind, name: name, character: character, position: offset + 1)
        }
    }

    /// The form two names are compared in: lower-cased, without spaces and apostrophes.
    public static func comparisonKey(_ name: String) -> String {
        String(name.lowercased().filter { $0 != " " && !isApostrophe($0) })
    }

    /// Checks the characters and that no name in `existing` is the same name.
    public static func validateUnique(
        _ name: String,
        kind: NamedKind,
        among existing: some Sequence<String>
    ) throws(NameError) {
        try validate(name, kind: kind)
        let key = comparisonKey(name)
        if let clash = existing.first(where: { comparisonKey($0) == key }) {
            throw .duplicate(kind: kind, name: name, existing: clash)
        }
    }

    private static func isApostrophe(_ character: Character) -> Bool {
        character == "'" || character == "\u{2019}"
    }
}

/// The things that carry HomeKit-style names.
public enum NamedKind: String, Sendable, Hashable, CustomStringConvertible {
    case home, room, zone, group, scene

    public var description: String { rawValue }
}

/// Why a name was refused, and what would be accepted.
public enum NameError: Error, Sendable, Hashable, CustomStringConvertible {
    case empty(kind: NamedKind)
    case badStart(kind: NamedKind, name: String, character: Character)
    case badCharacter(kind: NamedKind, name: String, character: Character, position: Int)
    case duplicate(kind: NamedKind, name: String, existing: String)

    public var description: String {
        let rule = "use letters, digits, spaces and apostrophes, starting with a letter or digit"
        switch self {
        case .empty(let kind):
            return "\(kind) name is empty; \(rule)"
        case .badStart(let kind, let name, let character):
            return "\(kind) name '\(name)' starts with '\(character)'; \(rule)"
        case .badCharacter(let kind, let name, let character, let position):
            return "\(kind) name '\(name)' has '\(character)' at position \(position); \(rule)"
        case .duplicate(let kind, let name, let existing):
            return "\(kind) name '\(name)' is the same as the existing '\(existing)' "
                + "(names are compared ignoring case, spaces and apostrophes); choose another"
        }
    }
}
