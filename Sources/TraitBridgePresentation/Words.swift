/// The small text rules of a person's words: identifiers split into words, numbers with at most a
/// few decimals and no trailing zeros, input folded for comparison.
enum Words {
    /// `NotFullyLocked` → "not fully locked", `RollerShade2Motor` → "roller shade 2 motor",
    /// `HVACMode` → "HVAC mode", `occupiedHeatingSetpoint` → "occupied heating setpoint". Acronyms
    /// (two capitals or more) keep their case; other words are lower-cased.
    static func fromIdentifier(_ identifier: String) -> String {
        let characters = Array(identifier)
        var words: [String] = []
        var current = ""
        for (index, character) in characters.enumerated() {
            if character == "_" || character == " " || character == "-" {
                if !current.isEmpty { words.append(current) }
                current = ""
                continue
            }
            if let previous = current.last {
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let startsWord =
                    (previous.isLowercase && character.isUppercase)
                    || (previous.isLetter && character.isNumber) || (previous.isNumber && character.isLetter)
                    || (previous.isUppercase && character.isUppercase && (next?.isLowercase ?? false))
                if startsWord {
                    words.append(current)
                    current = ""
                }
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words.map { word in
            word.count > 1 && word.allSatisfy { $0.isUppercase || $0.isNumber } ? word : word.lowercased()
        }.joined(separator: " ")
    }

    /// The first letter in capitals: "occupied heating setpoint" → "Occupied heating setpoint".
    static func capitalized(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst()
    }

    /// `number` with at most `decimals` decimals, trailing zeros dropped: 22.2, 22, -0.5, 1 234 567
    /// written plainly (1234567); beyond 10^15 in Swift's own form.
    static func number(_ number: Double, decimals: Int) -> String {
        guard number.isFinite else { return "–" }
        let places = max(0, min(decimals, 6))
        var factor = 1.0
        for _ in 0..<places { factor *= 10 }
        let scaled = (abs(number) * factor).rounded()
        guard scaled < 1e15, let units = Int64(exactly: scaled) else { return String(number) }
        let whole = units / Int64(factor)
        var fraction = String(units % Int64(factor))
        fraction = String(repeating: "0", count: max(0, places - fraction.count)) + fraction
        while fraction.last == "0" { fraction.removeLast() }
        let sign = number < 0 && units != 0 ? "-" : ""
        return sign + String(whole) + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// " °C", " %", " % open": a space before every unit (as SI writes it).
    static func unitSuffix(_ symbol: String) -> String { symbol.isEmpty ? "" : " " + symbol }

    /// Input as compared with a word or a unit: no spaces, no quotes, lower case.
    static func folded<S: StringProtocol>(_ text: S) -> String {
        String(text.filter { !$0.isWhitespace && $0 != "\"" && $0 != "_" }).lowercased()
    }

    /// Text as shown in a line: at most 80 characters, control characters as spaces.
    static func clipped(_ text: String) -> String {
        let visible = String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        return visible.count <= 80 ? visible : String(visible.prefix(79)) + "…"
    }
}
