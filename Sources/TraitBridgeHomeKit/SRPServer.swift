import BigInt
import Crypto
import Foundation

/// The accessory's side of SRP-6a as HAP's pair-setup uses it (HAP §5.6, RFC 5054): the 3072-bit
/// group, generator 5, SHA-512, user name "Pair-Setup" and the setup code as the password. The
/// salt and the private value come from the caller (the edge draws randomness; tests use vectors).
public struct SRPServer: Sendable {
    /// The group's prime (RFC 5054 appendix A, 3072 bits).
    static let modulus = BigUInt(
        """
        FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD\
        EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED\
        EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F\
        83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B\
        E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510\
        15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7\
        ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C\
        BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF
        """, radix: 16)!
    static let generator = BigUInt(5)
    /// Bytes of a number of the group, padded (PAD() of RFC 5054).
    static let width = 384
    static let userName = "Pair-Setup"

    public let salt: [UInt8]
    /// B, padded to the group's width: the value sent in M2.
    public let publicKey: [UInt8]
    /// v = g^x, padded.
    private let verifier: [UInt8]
    private let privateValue: [UInt8]

    /// `salt`: 16 random bytes; `privateValue`: 32 random bytes (b).
    public init(setupCode: String, salt: [UInt8], privateValue: [UInt8]) {
        self.salt = salt
        let inner = Self.hash(Array("\(Self.userName):\(setupCode)".utf8))
        let x = Self.hash(salt + inner)
        verifier = Self.arithmetic.power([5], x)
        self.privateValue = privateValue
        let gb = BigUInt(Data(Self.arithmetic.power([5], privateValue)))
        let kv = BigUInt(Data(Self.arithmetic.product(Self.padded(Self.multiplier), verifier)))
        let sum = kv + gb
        publicKey = Self.padded(sum >= Self.modulus ? sum - Self.modulus : sum)
    }

    /// The group's arithmetic in Montgomery form (R² mod N computed once).
    static let arithmetic = MontgomeryArithmetic(
        modulus: padded(modulus), rSquared: padded((BigUInt(1) << (2 * 8 * width)) % modulus))

    /// k = H(N | PAD(g)).
    static let multiplier = BigUInt(Data(hash(padded(modulus) + padded(generator))))

    /// H(N) xor H(g), the first part of the client's proof.
    static let groupHash: [UInt8] = {
        let n = hash(padded(modulus))
        let g = hash([5])
        return zip(n, g).map { $0 ^ $1 }
    }()

    /// Checks the client's public key A and proof M1; the session key K and the server's proof M2
    /// when the client knew the setup code, nil when it did not (or sent an A that is 0 mod N).
    public func verify(clientPublicKey: [UInt8], clientProof: [UInt8]) -> (sessionKey: [UInt8], proof: [UInt8])? {
        guard clientPublicKey.count <= Self.width, clientProof.count == 64 else { return nil }
        let a = BigUInt(Data(clientPublicKey))
        guard a != 0, a < Self.modulus else { return nil }
        let aBytes = Self.padded(a)
        let u = Self.hash(aBytes + publicKey)
        guard u.contains(where: { $0 != 0 }) else { return nil }
        let base = Self.arithmetic.product(aBytes, Self.arithmetic.power(verifier, u))
        let secret = Self.arithmetic.power(base, privateValue)
        let sessionKey = Self.hash(secret)
        let expected = Self.hash(
            Self.groupHash + Self.hash(Array(Self.userName.utf8)) + salt + aBytes + publicKey + sessionKey)
        guard Self.constantTimeEqual(expected, clientProof) else { return nil }
        return (sessionKey, Self.hash(aBytes + clientProof + sessionKey))
    }

    static func hash(_ bytes: [UInt8]) -> [UInt8] { Array(SHA512.hash(data: bytes)) }

    static func padded(_ value: BigUInt) -> [UInt8] {
        let bytes = [UInt8](value.serialize())
        return bytes.count >= width ? bytes : [UInt8](repeating: 0, count: width - bytes.count) + bytes
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
