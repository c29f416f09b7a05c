/// A hash of an identifier's text computed once, when the identifier is made, for the keys the
/// message path looks up many times a message (a device's id ten times, its source reference six):
/// a lookup then mixes one integer instead of the text's bytes.
///
/// Made by Swift's own `Hasher` (SipHash, seeded afresh in each process), never by a fixed function:
/// ids come from outside, and a fixed hash would let a publisher choose ids that all collide and
/// turn every lookup into a walk of them (hash flooding). Equal texts give equal hashes, so `==` may
/// compare it first.
enum IdentifierHash {
    static func of(_ text: String) -> Int {
        var hasher = Hasher()
        hasher.combine(text)
        return hasher.finalize()
    }

    static func of(_ first: String, _ second: String, _ third: String) -> Int {
        var hasher = Hasher()
        hasher.combine(first)
        hasher.combine(second)
        hasher.combine(third)
        return hasher.finalize()
    }
}
