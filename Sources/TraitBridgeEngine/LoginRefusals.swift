/// Wrong passwords and held-back attempts on the bridge's login pages, as the HTTP edge reports
/// them: `<prefix>/bridge/health` shows them beside the limits' refusals, so an operator sees a
/// guessing attack without reading the log.
struct LoginRefusals: Sendable, Hashable {
    private(set) var failed = 0
    private(set) var waited = 0

    /// A new report (the edge's running totals); whether anything changed.
    mutating func update(failed: Int, waited: Int) -> Bool {
        guard failed != self.failed || waited != self.waited else { return false }
        self.failed = failed
        self.waited = waited
        return true
    }

    var isEmpty: Bool { failed == 0 && waited == 0 }
}
