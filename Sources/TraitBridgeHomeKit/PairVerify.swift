import Crypto
import Foundation

/// One connection's pair-verify (HAP §5.7): an X25519 exchange, each side signing both ephemeral
/// keys with its long-term key; the end is the session's keys and the verified controller.
struct PairVerify: Sendable {
    private var pending: (shared: [UInt8], accessoryKey: [UInt8], controllerKey: [UInt8])?

    /// What a pair-verify message led to.
    struct Answer: Sendable {
        var tlv: TLV8
        var session: (controller: String, cipher: SessionCipher)?
    }

    /// One `POST /pair-verify` body. `ephemeral`: a fresh X25519 key (the edge's randomness).
    mutating func handle(
        _ request: TLV8, pairingID: String, longTermSecretKey: [UInt8], ephemeral: Curve25519.KeyAgreement.PrivateKey,
        controllerKey: (String) -> [UInt8]?
    ) -> Answer {
        switch request.byte(.state) {
        case 1: start(request, pairingID: pairingID, secretKey: longTermSecretKey, ephemeral: ephemeral)
        case 3: finish(request, controllerKey: controllerKey)
        default: Answer(tlv: .error(.unknown, state: (request.byte(.state) ?? 0) &+ 1))
        }
    }

    private mutating func start(
        _ request: TLV8, pairingID: String, secretKey: [UInt8], ephemeral: Curve25519.KeyAgreement.PrivateKey
    ) -> Answer {
        guard let theirs = request[.publicKey],
            let theirKey = try? Curve25519.KeyAgreement.PublicKey(
                rawRepresentation: theirs),
            let shared = try? ephemeral.sharedSecretFromKeyAgreement(with: theirKey),
            let signing = try? Curve25519.Signing.PrivateKey(rawRepresentation: secretKey)
        else { return Answer(tlv: .error(.authentication, state: 2)) }
        let sharedBytes = shared.withUnsafeBytes { Array($0) }
        let ours = Array(ephemeral.publicKey.rawRepresentation)
        guard let signature = try? signing.signature(for: ours + Array(pairingID.utf8) + theirs) else {
            return Answer(tlv: .error(.unknown, state: 2))
        }
        var sub = TLV8()
        sub.append(.identifier, Array(pairingID.utf8))
        sub.append(.signature, Array(signature))
        let key = HAPCrypto.derive(sharedBytes, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        pending = (sharedBytes, ours, theirs)
        var answer = TLV8()
        answer.append(.state, byte: 2)
        answer.append(.publicKey, ours)
        answer.append(.encryptedData, HAPCrypto.seal(sub.encoded, key: key, nonce: HAPCrypto.labelNonce("PV-Msg02")))
        return Answer(tlv: answer)
    }

    private mutating func finish(_ request: TLV8, controllerKey: (String) -> [UInt8]?) -> Answer {
        guard let pending, let sealed = request[.encryptedData] else { return Answer(tlv: .error(.unknown, state: 4)) }
        self.pending = nil
        let key = HAPCrypto.derive(pending.shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        guard let plain = HAPCrypto.open(sealed, key: key, nonce: HAPCrypto.labelNonce("PV-Msg03")),
            let sub = try? TLV8(decoding: plain), let id = sub[.identifier], let signature = sub[.signature],
            let controllerID = String(bytes: id, encoding: .utf8), let known = controllerKey(controllerID),
            let verifying = try? Curve25519.Signing.PublicKey(rawRepresentation: known),
            verifying.isValidSignature(signature, for: pending.controllerKey + id + pending.accessoryKey)
        else { return Answer(tlv: .error(.authentication, state: 4)) }
        var answer = TLV8()
        answer.append(.state, byte: 4)
        return Answer(tlv: answer, session: (controllerID, SessionCipher(sharedSecret: pending.shared)))
    }
}
