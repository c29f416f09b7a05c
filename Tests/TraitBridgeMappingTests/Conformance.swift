import Foundation

/// Matter's conformance expressions, as far as the coverage tests need them: an otherwise list
/// (`A, B`: the first clause that applies decides), `M`, `O`, `P`, `D`, `X`, optional `[…]`, and
/// feature expressions with `!`, `&`, `|` and parentheses. A clause that names anything but a
/// feature of the trait (an attribute such as `HoldTime`, a comparison such as
/// `NumberOfPrimaries > 0`) is not decided by features: it is skipped and the next clause decides.
enum Conformance {
    /// Whether an element with conformance `text` is mandatory when exactly `features` are set;
    /// `codes` are the trait's feature codes.
    static func isMandatory(_ text: String?, features: Set<String>, codes: Set<String>) -> Bool {
        for clause in clauses(text ?? "O") {
            switch clause {
            case "M": return true
            case "O", "P", "D", "X": return false
            default:
                if clause.hasPrefix("O.") { return false }
                let isOptional = clause.hasPrefix("[") && clause.hasSuffix("]")
                let expression = isOptional ? String(clause.dropFirst().dropLast()) : clause
                guard let holds = evaluate(expression, features: features, codes: codes) else { continue }
                if holds { return !isOptional }
            }
        }
        return false
    }

    /// The comma-separated clauses at the top level.
    static func clauses(_ text: String) -> [String] {
        var clauses: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            if character == "(" || character == "[" { depth += 1 }
            if character == ")" || character == "]" { depth -= 1 }
            if character == ",", depth == 0 {
                clauses.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        clauses.append(current.trimmingCharacters(in: .whitespaces))
        return clauses
    }

    /// The value of a feature expression; nil when it names anything but a feature.
    static func evaluate(_ expression: String, features: Set<String>, codes: Set<String>) -> Bool? {
        var tokens: [String] = []
        var word = ""
        for character in expression + " " {
            if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
                continue
            }
            if !word.isEmpty { tokens.append(word) }
            word = ""
            if "!&|()".contains(character) {
                tokens.append(String(character))
            } else if !character.isWhitespace {
                return nil
            }
        }
        var parser = Parser(tokens: tokens, features: features, codes: codes)
        guard let value = parser.disjunction(), parser.position == tokens.count else { return nil }
        return value
    }

    /// Recursive descent: disjunction := conjunction ('|' conjunction)*; conjunction := factor
    /// ('&' factor)*; factor := '!' factor | '(' disjunction ')' | feature code.
    struct Parser {
        let tokens: [String]
        let features: Set<String>
        let codes: Set<String>
        var position = 0

        mutating func disjunction() -> Bool? {
            guard var value = conjunction() else { return nil }
            while position < tokens.count, tokens[position] == "|" {
                position += 1
                guard let next = conjunction() else { return nil }
                value = value || next
            }
            return value
        }

        mutating func conjunction() -> Bool? {
            guard var value = factor() else { return nil }
            while position < tokens.count, tokens[position] == "&" {
                position += 1
                guard let next = factor() else { return nil }
                value = value && next
            }
            return value
        }

        mutating func factor() -> Bool? {
            guard position < tokens.count else { return nil }
            let token = tokens[position]
            position += 1
            switch token {
            case "!": return factor().map { !$0 }
            case "(":
                guard let value = disjunction(), position < tokens.count, tokens[position] == ")" else { return nil }
                position += 1
                return value
            default:
                return codes.contains(token) ? features.contains(token) : nil
            }
        }
    }
}
