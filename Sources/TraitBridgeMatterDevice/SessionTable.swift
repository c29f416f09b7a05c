import TraitBridgeMatterCommissioning
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// The node's sessions (Core §4.13): the unsecured ones, one per commissioner's ephemeral node ID
/// and address, that carry PASE; and the secure ones PASE established, found by the session ID we
/// gave them. It exists so both kinds stay within fixed bounds whatever a peer sends: at the
/// bound, the least recently active one makes room (and the caller logs it).
///
/// Bounds (``NodeLimits``): connectedhomeip sizes its pools at 16 secure sessions
/// (`CHIP_CONFIG_SECURE_SESSION_POOL_SIZE`) and a handful of unauthenticated ones; a device serves
/// a few fabrics' controllers, each with a CASE session or two, plus one PASE, so 16 is room with
/// margin. Unsecured sessions carry only handshakes, one PASE at a time here (a second
/// commissioner gets BUSY, which needs its session for a moment), so 8 is plenty while bounding
/// what a flood of fresh ephemeral IDs can make us hold.
struct SessionTable<Peer: Hashable & Sendable>: Sendable {
    struct Unsecured: Sendable {
        let key: SessionKey
        let peer: Peer
        /// The initiator's random source node ID: our replies carry it as destination.
        let ephemeralNodeID: UInt64
        var replay = ReplayWindow(kind: .unsecured)
        var lastActive: ContinuousClock.Instant
    }

    struct Secure: Sendable {
        let localSessionID: UInt16
        let peerSessionID: UInt16
        /// PASE (commissioning) or CASE (operational).
        let kind: CommandContext.SessionKind
        /// The fabric the session acts on: CASE's, or the one a PASE session's AddNOC installed; 0 for none.
        var fabricIndex: UInt8
        /// In the nonce of what we send: our node ID on the session's fabric (CASE), 0 for PASE.
        let localNodeID: UInt64
        /// In the nonce of what the peer sends: its node ID (CASE), 0 (unspecified) for PASE.
        let peerNodeID: UInt64
        /// The peer NOC's CASE Authenticated Tags (CASE), for access control.
        var peerCASEAuthenticatedTags: [UInt32] = []
        /// Where the last authenticated message came from.
        var peer: Peer
        let keys: SessionKeys
        var counter: MessageCounter
        var replay = ReplayWindow(kind: .secureUnicast)
        var lastActive: ContinuousClock.Instant
        /// Set when the session must end but owes its peer a reply first (UpdateNOC's NOCResponse, an
        /// ArmFailSafe that rolled its own fabric back): it serves nothing new and is dropped once no
        /// message it sent awaits an ack (the SDK's `AbortAllOtherCommunicationOnFabric`).
        var closesAfterReply = false

        var key: SessionKey { SessionKey(UInt64(localSessionID)) }

        /// Who acts on this session, for access control: the commissioner on PASE, the peer node on CASE.
        var subject: AccessSubject {
            kind == .pase
                ? .commissioner
                : .node(peerNodeID, fabricIndex: fabricIndex, caseAuthenticatedTags: peerCASEAuthenticatedTags)
        }
    }

    let secureLimit: Int
    let unsecuredLimit: Int
    private(set) var unsecured: [Unsecured] = []
    private(set) var secure: [UInt16: Secure] = [:]
    private var nextUnsecuredIndex: UInt32 = 0
    private var nextLocalSessionID: UInt16

    init(secureLimit: Int, unsecuredLimit: Int, using generator: inout some RandomNumberGenerator) {
        precondition(secureLimit > 0 && unsecuredLimit > 0, "a session table without room")
        self.secureLimit = secureLimit
        self.unsecuredLimit = unsecuredLimit
        nextLocalSessionID = UInt16.random(in: 1...UInt16.max, using: &generator)
    }

    /// Unsecured session keys live above 2^32, clear of secure ones (their local session ID).
    static func isUnsecured(_ key: SessionKey) -> Bool { key.rawValue >> 32 != 0 }

    func unsecured(_ key: SessionKey) -> Unsecured? { unsecured.first { $0.key == key } }

    /// The unsecured session of `ephemeralNodeID` at `peer`, made if new; when the table is full,
    /// the least recently active one other than `protected` (the running PASE's) is evicted and
    /// returned. Nil when every session is protected (cannot happen with one protected and a bound above 1).
    mutating func unsecuredSession(
        peer: Peer, ephemeralNodeID: UInt64, now: ContinuousClock.Instant, protecting protected: SessionKey?
    ) -> (key: SessionKey, evicted: Unsecured?)? {
        if let index = unsecured.firstIndex(where: { $0.peer == peer && $0.ephemeralNodeID == ephemeralNodeID }) {
            unsecured[index].lastActive = now
            return (unsecured[index].key, nil)
        }
        var evicted: Unsecured?
        if unsecured.count >= unsecuredLimit {
            let candidates = unsecured.indices.filter { unsecured[$0].key != protected }
            guard let oldest = candidates.min(by: { unsecured[$0].lastActive < unsecured[$1].lastActive }) else {
                return nil
            }
            evicted = unsecured.remove(at: oldest)
        }
        nextUnsecuredIndex &+= 1
        let key = SessionKey(1 << 32 | UInt64(nextUnsecuredIndex))
        unsecured.append(Unsecured(key: key, peer: peer, ephemeralNodeID: ephemeralNodeID, lastActive: now))
        return (key, evicted)
    }

    /// The unsecured replay window's verdict on `counter` (Core §4.6.5.2).
    mutating func receiveUnsecured(_ counter: UInt32, on key: SessionKey) -> ReplayWindow.Verdict {
        guard let index = unsecured.firstIndex(where: { $0.key == key }) else { return .new }
        return unsecured[index].replay.receive(counter)
    }

    /// A local session ID for a new secure session: non-zero and in use by no secure session.
    mutating func freeLocalSessionID() -> UInt16 {
        // At most `secureLimit` IDs are taken, so this ends within secureLimit + 2 steps.
        while nextLocalSessionID == 0 || secure[nextLocalSessionID] != nil { nextLocalSessionID &+= 1 }
        defer { nextLocalSessionID &+= 1 }
        return nextLocalSessionID
    }

    /// Installs a session PASE or CASE established; at the bound the least recently active one is evicted and returned.
    mutating func install(_ session: Secure) -> Secure? {
        var evicted: Secure?
        if secure.count >= secureLimit, let oldest = secure.values.min(by: { $0.lastActive < $1.lastActive }) {
            evicted = secure.removeValue(forKey: oldest.localSessionID)
        }
        secure[session.localSessionID] = session
        return evicted
    }

    mutating func update(_ session: Secure) { secure[session.localSessionID] = session }

    @discardableResult
    mutating func removeSecure(_ localSessionID: UInt16) -> Secure? { secure.removeValue(forKey: localSessionID) }

    func secure(_ key: SessionKey) -> Secure? {
        guard !Self.isUnsecured(key), let id = UInt16(exactly: key.rawValue) else { return nil }
        return secure[id]
    }
}
