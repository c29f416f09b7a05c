public import FoundationEssentials
import GRDB

/// A token the bridge issued when a user linked an account (OAuth 2.0), as the registry keeps it:
/// only a hash of the token, never the token itself.
public struct LinkingToken: Sendable, Hashable {
    /// Access tokens open `/smarthome`; refresh tokens only buy new access tokens.
    public enum Kind: String, Sendable, Hashable { case access, refresh }

    /// The token's SHA-256, hex: what a presented token is looked up by.
    public var hash: String
    public var kind: Kind
    public var agentUserID: String
    public var clientID: String
    public var createdAt: Date
    /// `nil`: until revoked.
    public var expiresAt: Date?

    public init(hash: String, kind: Kind, agentUserID: String, clientID: String, createdAt: Date, expiresAt: Date?) {
        self.hash = hash
        self.kind = kind
        self.agentUserID = agentUserID
        self.clientID = clientID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    public func isValid(at now: Date) -> Bool { expiresAt.map { now < $0 } ?? true }
}

extension DeviceStore {
    /// Keeps a newly issued token (by its hash), dropping tokens that expired before `now`.
    public func saveToken(_ token: LinkingToken, now: Date) throws(StoreError) {
        do {
            try queue.write { db in
                try db.execute(
                    sql: "DELETE FROM linkingToken WHERE expiresAt IS NOT NULL AND expiresAt < ?",
                    arguments: [now.timeIntervalSince1970])
                try db.execute(
                    sql:
                        "INSERT OR REPLACE INTO linkingToken (hash, kind, agentUserID, clientID, createdAt, expiresAt) "
                        + "VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [
                        token.hash, token.kind.rawValue, token.agentUserID, token.clientID,
                        token.createdAt.timeIntervalSince1970, token.expiresAt?.timeIntervalSince1970,
                    ])
            }
        } catch {
            throw .writeFailed("\(error)")
        }
    }

    /// The token with this hash, if the registry holds it (expired or not: the caller decides).
    public func token(hash: String) throws(StoreError) -> LinkingToken? {
        do {
            return try queue.read { db in
                try GRDB.Row.fetchOne(db, sql: "SELECT * FROM linkingToken WHERE hash = ?", arguments: [hash])
                    .flatMap(Self.token(from:))
            }
        } catch {
            throw .readFailed("\(error)")
        }
    }

    /// Every kept token, oldest first (hashes only: there is nothing secret to print).
    public func tokens() throws(StoreError) -> [LinkingToken] {
        do {
            return try queue.read { db in
                try GRDB.Row.fetchAll(db, sql: "SELECT * FROM linkingToken ORDER BY createdAt, hash")
                    .compactMap(Self.token(from:))
            }
        } catch {
            throw .readFailed("\(error)")
        }
    }

    /// Revokes tokens: one by hash, every token of a user, or (both `nil`) all of them.
    /// Returns how many were revoked.
    @discardableResult
    public func revokeTokens(hash: String? = nil, agentUserID: String? = nil) throws(StoreError) -> Int {
        do {
            return try queue.write { db in
                switch (hash, agentUserID) {
                case (let hash?, _): try db.execute(sql: "DELETE FROM linkingToken WHERE hash = ?", arguments: [hash])
                case (nil, let user?):
                    try db.execute(sql: "DELETE FROM linkingToken WHERE agentUserID = ?", arguments: [user])
                case (nil, nil): try db.execute(sql: "DELETE FROM linkingToken")
                }
                return db.changesCount
            }
        } catch {
            throw .writeFailed("\(error)")
        }
    }

    private static func token(from row: GRDB.Row) -> LinkingToken? {
        guard let kind = LinkingToken.Kind(rawValue: row["kind"]) else { return nil }
        let expires: Double? = row["expiresAt"]
        return LinkingToken(
            hash: row["hash"], kind: kind, agentUserID: row["agentUserID"], clientID: row["clientID"],
            createdAt: Date(timeIntervalSince1970: row["createdAt"]),
            expiresAt: expires.map(Date.init(timeIntervalSince1970:)))
    }
}
