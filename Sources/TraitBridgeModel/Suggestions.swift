/// "Did you mean Hall light?": the names nearest to one that matched nothing — a device, a room, a
/// trait, a command typed a letter wrong — so a refusal points at the right input instead of only
/// saying no.
///
/// Names are compared as ``NameRules/comparisonKey(_:)`` forms by the optimal string alignment
/// distance (an edit: a letter added, removed, changed, or two swapped); one is near when it is
/// within a third of the typed length (at least one edit), or when one contains the other. Work
/// is bounded: names are compared by their first 64 characters, and at most 10 000 candidates.
public enum Suggestions {
    static let maximumLength = 64
    static let maximumCandidates = 10_000

    /// Up to `limit` names of `candidates` nearest to `typed`, nearest first (ties in their order).
    public static func nearest(to typed: String, among candidates: some Sequence<String>, limit: Int = 3) -> [String] {
        let wanted = Array(NameRules.comparisonKey(typed).prefix(maximumLength))
        guard !wanted.isEmpty else { return [] }
        let allowance = max(1, wanted.count / 3)
        var near: [(distance: Int, order: Int, name: String)] = []
        for (order, candidate) in candidates.prefix(maximumCandidates).enumerated() {
            let key = Array(NameRules.comparisonKey(candidate).prefix(maximumLength))
            guard !key.isEmpty, key != wanted || candidate != typed else { continue }
            // Lengths further apart than the allowance cannot be within it: no table to fill, so a
            // hostile name far from every one costs a comparison of lengths per candidate.
            let distance = abs(key.count - wanted.count) <= allowance ? editDistance(wanted, key) : allowance + 1
            let contains =
                key.count >= 3 && wanted.count >= 3
                && (String(key).contains(String(wanted)) || String(wanted).contains(String(key)))
            if distance <= allowance || contains {
                near.append((min(distance, allowance), order, candidate))
            }
        }
        var seen: Set<String> = []
        return near.sorted { ($0.distance, $0.order) < ($1.distance, $1.order) }
            .map(\.name).filter { seen.insert($0).inserted }.prefix(max(0, limit)).map { $0 }
    }

    /// " (did you mean 'Hall light'?)" (or "… 'a' or 'b'?"), empty when nothing is near.
    public static func didYouMean(_ typed: String, among candidates: some Sequence<String>) -> String {
        let names = nearest(to: typed, among: candidates)
        guard !names.isEmpty else { return "" }
        return " (did you mean " + names.map { "'\($0)'" }.joined(separator: " or ") + "?)"
    }

    /// Optimal string alignment distance (Levenshtein with adjacent transpositions).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, before[j - 2] + 1) }
                current[j] = best
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
