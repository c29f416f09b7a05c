import Crypto
public import Foundation
import TraitBridgeModel

/// The accessory's pairings and pair-setup (HAP §5.6): one setup at a time, wrong codes counted
/// and throttled, controllers added and removed. Messages in, answers out; the caller keeps it
/// behind a lock, persists `identity` when an answer says so, and hands in the randomness.
public struct PairingState: Sendable {
    public internal(set) var identity: HomeKitIdentity
    private var setup: Setup?
    private var backoffUntil: Date?

    /// How many controllers one accessory keeps (HAP: at least 16).
    public static let controllerLimit = 16
    /// Wrong codes in a row before each further try waits (5 s, doubling, at most an hour).
    public static let freeTries = 3
    /// HAP §5.6.1: after 100 wrong codes the accessory refuses pair-setup until it is reset.
    public static let maxTries = 100
    /// A setup that stops answering gives way to another after this long.
    static let setupLifetime: TimeInterval = 60

    struct Setup: Sendable {
        var connection: Int
        var server: SRPServer
        var sessionKey: [UInt8]?
        var started: Date
    }

    /// What a pairing message led to.
    public struct Answer: Sendable {
        public var tlv: TLV8
        /// `identity` changed (a controller added or removed, a wrong try counted): persist it.
        public var changed = false
        /// A controller was added by this message.
        public var addedController: String?
    }

    public init(identity: HomeKitIdentity) { self.identity = identity }

    /// Randomness for a setup's first message: the salt (16 bytes) and SRP's private value (32).
    public struct SetupRandom: Sendable {
        public var salt: [UInt8]
        public var privateValue: [UInt8]
        public init(salt: [UInt8], privateValue: [UInt8]) {
            self.salt = salt
            self.privateValue = privateValue
        }
    }

    /// One `POST /pair-setup` body from `connection`.
    public mutating func pairSetup(_ request: TLV8, connection: Int, now: Date, random: () -> SetupRandom) -> Answer {
        switch request.byte(.state) {
        case 1: return start(request, connection: connection, now: now, random: random)
        case 3: return verifyProof(request, connection: connection, now: now)
        case 5: return exchange(request, connection: connection)
        default: return Answer(tlv: .error(.unknown, state: (request.byte(.state) ?? 0) &+ 1))
        }
    }

    /// Takes the accessory database's ids, configuration number and offered keys from `other`; the pairings
    /// stay.
    public mutating func adoptIDs(of other: HomeKitIdentity) {
        identity.accessoryIDs = other.accessoryIDs
        identity.instanceIDs = other.instanceIDs
        identity.configurationNumber = other.configurationNumber
        identity.databaseDigest = other.databaseDigest
        identity.offered = other.offered
    }

    /// A connection closed: a setup it had begun is dropped.
    public mutating func connectionClosed(_ connection: Int) {
        if setup?.connection == connection { setup = nil }
    }

    private mutating func start(
        _ request: TLV8, connection: Int, now: Date, random: () -> SetupRandom
    ) -> Answer {
        guard let method = request.byte(.method), method <= 1 else { return Answer(tlv: .error(.unknown, state: 2)) }
        if identity.isPaired { return Answer(tlv: .error(.unavailable, state: 2)) }
        if identity.failedTries >= Self.maxTries { return Answer(tlv: .error(.maxTries, state: 2)) }
        if let backoffUntil, now < backoffUntil {
            var answer = TLV8.error(.backoff, state: 2)
            let seconds = FiniteNumber.int64(rounding: backoffUntil.timeIntervalSince(now).rounded(.up)) ?? 3600
            answer.append(.retryDelay, Self.littleEndian(UInt16(clamping: seconds)))
            return Answer(tlv: answer)
        }
        if let setup, setup.connection != connection, now.timeIntervalSince(setup.started) < Self.setupLifetime {
            return Answer(tlv: .error(.busy, state: 2))
        }
        let values = random()
        let server = SRPServer(setupCode: identity.setupCode, salt: values.salt, privateValue: values.privateValue)
        setup = Setup(connection: connection, server: server, sessionKey: nil, started: now)
        var answer = TLV8()
        answer.append(.state, byte: 2)
        answer.append(.publicKey, server.publicKey)
        answer.append(.salt, server.salt)
        return Answer(tlv: answer)
    }

    private mutating func verifyProof(_ request: TLV8, connection: Int, now: Date) -> Answer {
        guard let current = setup, current.connection == connection, current.sessionKey == nil,
            let clientKey = request[.publicKey], let proof = request[.proof]
        else { return Answer(tlv: .error(.unknown, state: 4)) }
        guard let verified = current.server.verify(clientPublicKey: clientKey, clientProof: proof) else {
            setup = nil
            identity.failedTries += 1
            let over = identity.failedTries - Self.freeTries
            if over >= 0 {
                let seconds = min(3600.0, 5 * Double(1 << min(over, 10)))
                backoffUntil = now.addingTimeInterval(seconds)
            }
            return Answer(tlv: .error(.authentication, state: 4), changed: true)
        }
        setup?.sessionKey = verified.sessionKey
        var answer = TLV8()
        answer.append(.state, byte: 4)
        answer.append(.proof, verified.proof)
        return Answer(tlv: answer)
    }

    private mutating func exchange(_ request: TLV8, connection: Int) -> Answer {
        guard let current = setup, current.connection == connection, let sessionKey = current.sessionKey,
            let sealed = request[.encryptedData]
        else { return Answer(tlv: .error(.unknown, state: 6)) }
        setup = nil
        let key = HAPCrypto.derive(sessionKey, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
        guard let plain = HAPCrypto.open(sealed, key: key, nonce: HAPCrypto.labelNonce("PS-Msg05")),
            let sub = try? TLV8(decoding: plain), let id = sub[.identifier], let publicKey = sub[.publicKey],
            let signature = sub[.signature], let controllerID = String(bytes: id, encoding: .utf8),
            let verifying = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey)
        else { return Answer(tlv: .error(.authentication, state: 6)) }
        let controllerX = Self.derivedBytes(sessionKey, "Pair-Setup-Controller-Sign")
        guard verifying.isValidSignature(signature, for: controllerX + id + publicKey) else {
            return Answer(tlv: .error(.authentication, state: 6))
        }
        guard identity.controllers.count < Self.controllerLimit else { return Answer(tlv: .error(.maxPeers, state: 6)) }
        guard let signing = try? Curve25519.Signing.PrivateKey(rawRepresentation: identity.longTermSecretKey),
            let accessorySignature = try? signing.signature(
                for: Self.derivedBytes(sessionKey, "Pair-Setup-Accessory-Sign") + Array(identity.pairingID.utf8)
                    + Array(signing.publicKey.rawRepresentation))
        else { return Answer(tlv: .error(.unknown, state: 6)) }
        identity.controllers.removeAll { $0.id == controllerID }
        identity.controllers.append(PairedController(id: controllerID, publicKey: publicKey, isAdmin: true))
        identity.failedTries = 0
        backoffUntil = nil
        var sub6 = TLV8()
        sub6.append(.identifier, Array(identity.pairingID.utf8))
        sub6.append(.publicKey, Array(signing.publicKey.rawRepresentation))
        sub6.append(.signature, Array(accessorySignature))
        var answer = TLV8()
        answer.append(.state, byte: 6)
        answer.append(.encryptedData, HAPCrypto.seal(sub6.encoded, key: key, nonce: HAPCrypto.labelNonce("PS-Msg06")))
        return Answer(tlv: answer, changed: true, addedController: controllerID)
    }

    static func derivedBytes(_ key: [UInt8], _ label: String) -> [UInt8] {
        HAPCrypto.derive(key, salt: label + "-Salt", info: label + "-Info").withUnsafeBytes { Array($0) }
    }

    static func littleEndian(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
