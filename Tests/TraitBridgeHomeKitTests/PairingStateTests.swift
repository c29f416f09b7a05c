import Crypto
import Foundation
import Testing

@testable import TraitBridgeHomeKit

/// Pair-setup, pair-verify and the session's frames as a controller drives them, in memory: the
/// SRP numbers from aiohomekit's vector, the controller's signatures made here.
@Suite("Pairing: setup, verify, session")
struct PairingStateTests {
    static let vector = SRPServerTests.vector
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func identity() -> HomeKitIdentity {
        var identity = HomeKitIdentity.make { Array(0..<64) }
        identity.setupCode = vector["code"] ?? ""
        return identity
    }

    static func random() -> PairingState.SetupRandom {
        PairingState.SetupRandom(salt: SRPServerTests.bytes("salt"), privateValue: SRPServerTests.bytes("b"))
    }

    static func message(_ items: [(TLV8.Tag, [UInt8])]) -> TLV8 {
        var tlv = TLV8()
        for (tag, value) in items { tlv.append(tag, value) }
        return tlv
    }

    /// Runs M1…M6 for `controllerID`; the accessory's M6 items (decrypted), or the first error.
    static func pair(
        _ state: inout PairingState, controllerID: String, key: Curve25519.Signing.PrivateKey, connection: Int = 1,
        proof: [UInt8] = SRPServerTests.bytes("M1")
    ) -> Result<TLV8, TLV8.PairingError> {
        let m2 = state.pairSetup(
            message([(.state, [1]), (.method, [0])]), connection: connection, now: now, random: random)
        if let error = m2.tlv.byte(.error) { return .failure(TLV8.PairingError(rawValue: error) ?? .unknown) }
        #expect(m2.tlv[.publicKey] == SRPServerTests.bytes("B") && m2.tlv[.salt] == SRPServerTests.bytes("salt"))
        let m4 = state.pairSetup(
            message([(.state, [3]), (.publicKey, SRPServerTests.bytes("A")), (.proof, proof)]), connection: connection,
            now: now, random: random)
        if let error = m4.tlv.byte(.error) { return .failure(TLV8.PairingError(rawValue: error) ?? .unknown) }
        #expect(m4.tlv[.proof] == SRPServerTests.bytes("M2"))
        let sessionKey = SRPServerTests.bytes("K")
        let encryption = HAPCrypto.derive(sessionKey, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
        let id = Array(controllerID.utf8)
        let publicKey = Array(key.publicKey.rawRepresentation)
        let signed = PairingState.derivedBytes(sessionKey, "Pair-Setup-Controller-Sign") + id + publicKey
        let sub = message([
            (.identifier, id), (.publicKey, publicKey), (.signature, Array(try! key.signature(for: signed))),
        ])
        let sealed = HAPCrypto.seal(sub.encoded, key: encryption, nonce: HAPCrypto.labelNonce("PS-Msg05"))
        let m6 = state.pairSetup(
            message([(.state, [5]), (.encryptedData, sealed)]), connection: connection, now: now, random: random)
        if let error = m6.tlv.byte(.error) { return .failure(TLV8.PairingError(rawValue: error) ?? .unknown) }
        guard
            let opened = HAPCrypto.open(
                m6.tlv[.encryptedData] ?? [], key: encryption,
                nonce: HAPCrypto.labelNonce("PS-Msg06")), let items = try? TLV8(decoding: opened)
        else { return .failure(.unknown) }
        return .success(items)
    }

    @Test("a controller pairs: M2 carries B and the salt, M4 the proof, M6 the accessory's signed identity")
    func pairSetup() throws {
        var state = PairingState(identity: Self.identity())
        let key = Curve25519.Signing.PrivateKey()
        let items = try Self.pair(&state, controllerID: "controller-1", key: key).get()
        let accessoryKey = try Curve25519.Signing.PublicKey(rawRepresentation: items[.publicKey] ?? [])
        let signed =
            PairingState.derivedBytes(SRPServerTests.bytes("K"), "Pair-Setup-Accessory-Sign")
            + (items[.identifier] ?? []) + (items[.publicKey] ?? [])
        #expect(accessoryKey.isValidSignature(items[.signature] ?? [], for: signed))
        #expect(items[.identifier] == Array(state.identity.pairingID.utf8))
        #expect(
            state.identity.controllers == [
                PairedController(
                    id: "controller-1",
                    publicKey: Array(key.publicKey.rawRepresentation), isAdmin: true)
            ])
        // Paired: another setup is refused as unavailable.
        #expect(Self.pair(&state, controllerID: "controller-2", key: key) == .failure(.unavailable))
    }

    @Test("wrong codes are counted; after three each try waits (backoff), after 100 pairing is refused")
    func throttling() {
        var state = PairingState(identity: Self.identity())
        var wrong = SRPServerTests.bytes("M1")
        wrong[5] ^= 0xFF
        let key = Curve25519.Signing.PrivateKey()
        for _ in 0..<3 {
            #expect(Self.pair(&state, controllerID: "c", key: key, proof: wrong) == .failure(.authentication))
        }
        #expect(state.identity.failedTries == 3)
        let answer = state.pairSetup(
            Self.message([(.state, [1]), (.method, [0])]), connection: 1, now: Self.now.addingTimeInterval(1),
            random: Self.random)
        #expect(answer.tlv.byte(.error) == TLV8.PairingError.backoff.rawValue)
        #expect(answer.tlv[.retryDelay] == [4, 0], "seconds left, little-endian")
        var spent = Self.identity()
        spent.failedTries = PairingState.maxTries
        var exhausted = PairingState(identity: spent)
        #expect(Self.pair(&exhausted, controllerID: "c", key: key) == .failure(.maxTries))
    }

    @Test("a second connection's setup is busy while the first one's is under way; a closed one frees it")
    func busy() {
        var state = PairingState(identity: Self.identity())
        let start = Self.message([(.state, [1]), (.method, [0])])
        _ = state.pairSetup(start, connection: 1, now: Self.now, random: Self.random)
        let second = state.pairSetup(start, connection: 2, now: Self.now, random: Self.random)
        #expect(second.tlv.byte(.error) == TLV8.PairingError.busy.rawValue)
        state.connectionClosed(1)
        #expect(state.pairSetup(start, connection: 2, now: Self.now, random: Self.random).tlv.byte(.error) == nil)
        // Out of order: M3 from a connection that sent no M1, M5 before M3.
        let early = state.pairSetup(
            Self.message([(.state, [5]), (.encryptedData, [1, 2, 3])]), connection: 2,
            now: Self.now, random: Self.random)
        #expect(early.tlv.byte(.error) == TLV8.PairingError.unknown.rawValue)
    }

    @Test("pair-verify: both signatures checked, then frames both ways; forged and replayed frames refused")
    func verifyAndSession() throws {
        var state = PairingState(identity: Self.identity())
        let key = Curve25519.Signing.PrivateKey()
        _ = try Self.pair(&state, controllerID: "controller-1", key: key).get()
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        var verify = PairVerify()
        let accessoryEphemeral = Curve25519.KeyAgreement.PrivateKey()
        let identity = state.identity
        let m2 = verify.handle(
            Self.message([(.state, [1]), (.publicKey, Array(ephemeral.publicKey.rawRepresentation))]),
            pairingID: identity.pairingID, longTermSecretKey: identity.longTermSecretKey, ephemeral: accessoryEphemeral,
            controllerKey: state.publicKey(of:))
        let accessoryPublic = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: m2.tlv[.publicKey] ?? [])
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: accessoryPublic).withUnsafeBytes { Array($0) }
        let verifyKey = HAPCrypto.derive(shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        let inner = try TLV8(
            decoding: HAPCrypto.open(
                m2.tlv[.encryptedData] ?? [], key: verifyKey,
                nonce: HAPCrypto.labelNonce("PV-Msg02")) ?? [])
        let accessoryLongTerm = try Curve25519.Signing.PrivateKey(rawRepresentation: identity.longTermSecretKey)
        #expect(
            accessoryLongTerm.publicKey.isValidSignature(
                inner[.signature] ?? [],
                for: (m2.tlv[.publicKey] ?? []) + Array(identity.pairingID.utf8) + ephemeral.publicKey.rawRepresentation
            ))
        let signed =
            Array(ephemeral.publicKey.rawRepresentation) + Array("controller-1".utf8) + (m2.tlv[.publicKey] ?? [])
        let sub = Self.message([
            (.identifier, Array("controller-1".utf8)), (.signature, Array(try key.signature(for: signed))),
        ])
        let m4 = verify.handle(
            Self.message([
                (.state, [3]),
                (
                    .encryptedData,
                    HAPCrypto.seal(sub.encoded, key: verifyKey, nonce: HAPCrypto.labelNonce("PV-Msg03"))
                ),
            ]),
            pairingID: identity.pairingID, longTermSecretKey: identity.longTermSecretKey, ephemeral: accessoryEphemeral,
            controllerKey: state.publicKey(of:))
        #expect(m4.tlv.byte(.error) == nil && m4.session?.controller == "controller-1")
        var accessory = try #require(m4.session?.cipher)
        // The controller's side: the same keys, the other way round.
        var controller = SessionCipher(sharedSecret: shared, role: .controller)
        let request = Array("GET /accessories HTTP/1.1\r\n\r\n".utf8) + [UInt8](repeating: 65, count: 1500)
        let frames = controller.seal(request)
        #expect(try accessory.open(Array(frames.prefix(700))) == [], "half a frame waits")
        #expect(try accessory.open(Array(frames.dropFirst(700))) == request, "two frames, 1024 + 505 bytes")
        #expect(try controller.open(accessory.seal(Array("HTTP/1.1 200 OK".utf8))) == Array("HTTP/1.1 200 OK".utf8))
        #expect(throws: SessionCipher.FrameError.forged(frame: 2)) { try accessory.open(frames) }  // replayed
        var forged = controller.seal([1, 2, 3])
        forged[4] ^= 1
        var fresh = m4.session!.cipher
        #expect(throws: SessionCipher.FrameError.forged(frame: 0)) { try fresh.open(forged) }
        var third = m4.session!.cipher
        #expect(throws: SessionCipher.FrameError.tooLong(2000)) { try third.open([0xD0, 0x07]) }
        // An unknown controller, or a signature by another key: refused.
        var other = PairVerify()
        _ = other.handle(
            Self.message([(.state, [1]), (.publicKey, Array(ephemeral.publicKey.rawRepresentation))]),
            pairingID: identity.pairingID, longTermSecretKey: identity.longTermSecretKey, ephemeral: accessoryEphemeral,
            controllerKey: { _ in nil })
        let refused = other.handle(
            Self.message([
                (.state, [3]),
                (
                    .encryptedData,
                    HAPCrypto.seal(sub.encoded, key: verifyKey, nonce: HAPCrypto.labelNonce("PV-Msg03"))
                ),
            ]),
            pairingID: identity.pairingID, longTermSecretKey: identity.longTermSecretKey, ephemeral: accessoryEphemeral,
            controllerKey: { _ in nil })
        #expect(refused.tlv.byte(.error) == TLV8.PairingError.authentication.rawValue && refused.session == nil)
    }
}
