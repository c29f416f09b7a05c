/// Matter's strings are bounded in bytes of UTF-8 (a NodeLabel 32, a DNS-SD device name 32): the one
/// way this package shortens one, between characters so never inside one.
public enum UTF8Text {
    /// `text` cut to at most `limit` bytes of UTF-8, between characters.
    public static func cut(_ text: String, toBytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var kept = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            guard bytes + size <= limit else { break }
            kept.append(character)
            bytes += size
        }
        return kept
    }
}
