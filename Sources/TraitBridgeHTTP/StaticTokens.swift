import FoundationEssentials

/// What a bearer token may do through the HTTP API, as the broker's roles say it for MQTT
/// (examples/mosquitto.acl): a viewer reads; control also sends commands; admin may do everything.
public enum APIRole: String, Sendable, Comparable {
    case viewer, control, admin

    public static func < (lhs: Self, rhs: Self) -> Bool {
        let order: [Self] = [.viewer, .control, .admin]
        return order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
    }
}

/// Bearer tokens from a file, for scripts and tests: `TOKEN [agentUserId [role]]` per line, `#`
/// comments; the role (`viewer`, `control`, `admin`) is `control` when not given, what Google's
/// `/smarthome` needs. Kept only as hashes once read.
public struct StaticTokens: Sendable {
    /// Token hash → the agentUserId it acts for.
    var users: [String: String] = [:]
    /// Token hash → its role.
    var roles: [String: APIRole] = [:]
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
            guard fields.count <= 3 else {
                throw .badLine(path: path, line: offset + 1, reason: "expected 'TOKEN [agentUserId [role]]'")
            }
            var role = APIRole.control
            if fields.count == 3 {
                guard let given = APIRole(rawValue: String(fields[2])) else {
                    throw .badLine(
                        path: path, line: offset + 1,
                        reason: "unknown role '\(fields[2])'; a role is viewer, control or admin")
                }
                role = given
            }
            let hash = Secrets.hash(String(token))
            users[hash] = fields.count >= 2 ? String(fields[1]) : defaultAgentUserID
            roles[hash] = role
        }
    }

    public var count: Int { users.count }

    func agentUserID(forHash hash: String) -> String? { users[hash] }

    func role(forHash hash: String) -> APIRole? { roles[hash] }
}
