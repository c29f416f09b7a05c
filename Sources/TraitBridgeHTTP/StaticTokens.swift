import FoundationEssentials

/// Bearer tokens from a file, for scripts and tests: `TOKEN [agentUserId]` per line, `#` comments.
/// Kept only as hashes once read.
public struct StaticTokens: Sendable {
    /// Token hash → the agentUserId it acts for.
    var users: [String: String] = [:]
    public static let minimumLength = 16

    public init() {}

    public init(path: String, defaultAgentUserID: String) throws(FulfillmentSetupError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, what: "bearer tokens file")
        }
        try self.init(text: String(decoding: data, as: UTF8.self), path: path, defaultAgentUserID: defaultAgentUserID)
    }

    public init(text: String, path: String, defaultAgentUserID: String) throws(FulfillmentSetupError) {
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let token = fields.first, !token.hasPrefix("#") else { continue }
            guard token.count >= Self.minimumLength else {
                throw .badLine(
                    path: path, line: offset + 1,
                    reason:
                        "a token must have at least \(Self.minimumLength) characters (make one with: openssl rand -hex 32)"
                )
            }
            guard fields.count <= 2 else {
                throw .badLine(path: path, line: offset + 1, reason: "expected 'TOKEN [agentUserId]'")
            }
            users[Secrets.hash(String(token))] = fields.count == 2 ? String(fields[1]) : defaultAgentUserID
        }
    }

    public var count: Int { users.count }

    func agentUserID(forHash hash: String) -> String? { users[hash] }
}
