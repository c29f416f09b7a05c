import Foundation

/// A controller paired with the accessory: its pairing id, its long-term Ed25519 public key and
/// whether it may add and remove pairings (admin).
public struct PairedController: Sendable, Codable, Equatable {
    public var id: String
    public var publicKey: [UInt8]
    public var isAdmin: Bool

    public init(id: String, publicKey: [UInt8], isAdmin: Bool) {
        self.id = id
        self.publicKey = publicKey
        self.isAdmin = isAdmin
    }
}

/// What the accessory keeps across restarts: who it is (pairing id, long-term key, setup code and
/// setup id), whom it is paired with, the configuration number, and the accessory and instance ids
/// it gave, so they stay stable across restarts and renames. Kept in the registry (owner-only).
public struct HomeKitIdentity: Sendable, Codable, Equatable {
    /// "AA:BB:CC:DD:EE:FF", the `id` of the TXT record and the accessory's pairing identifier.
    public var pairingID: String
    /// The Ed25519 long-term secret key (raw, 32 bytes).
    public var longTermSecretKey: [UInt8]
    /// "XXX-XX-XXX".
    public var setupCode: String
    /// Four characters of 0-9A-Z, for the QR payload and the `sh` hash.
    public var setupID: String
    public var controllers: [PairedController] = []
    /// `c#`: 1…65535, bumped when the accessories change.
    public var configurationNumber: Int = 1
    /// The digest of the accessory database the configuration number was given for.
    public var databaseDigest: String = ""
    /// Device id → aid (1 is the bridge).
    public var accessoryIDs: [String: Int] = [:]
    /// "<aid>/<service or characteristic key>" → iid.
    public var instanceIDs: [String: Int] = [:]
    /// Wrong setup codes since the last good pairing (HAP: after 100, pairing is refused).
    public var failedTries: Int = 0
    /// The keys (device ids, "scene:" and scene ids) of the accessories this bridge offered at its
    /// last rebuild; nil before. With several bridges, which one holds what after a restart.
    public var offered: [String]?

    public var isPaired: Bool { !controllers.isEmpty }

    public init(pairingID: String, longTermSecretKey: [UInt8], setupCode: String, setupID: String) {
        self.pairingID = pairingID
        self.longTermSecretKey = longTermSecretKey
        self.setupCode = setupCode
        self.setupID = setupID
    }

    /// A new identity from `random` bytes (the edge's randomness): 6 for the pairing id, 32 for the
    /// key, the rest for the setup code and id.
    public static func make(random: () -> [UInt8]) -> HomeKitIdentity {
        let id = random().prefix(6).map { String($0, radix: 16, uppercase: true) }
            .map { $0.count == 1 ? "0" + $0 : $0 }.joined(separator: ":")
        let key = Array(random().prefix(32))
        var digits = ""
        for byte in random() where digits.count < 8 && byte < 250 { digits += String(byte % 10) }
        while digits.count < 8 { digits += "1" }
        let code = SetupCode.format(digits) ?? "111-22-333"
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let setupID = String(random().prefix(4).map { alphabet[Int($0) % alphabet.count] })
        return HomeKitIdentity(pairingID: id, longTermSecretKey: key, setupCode: code, setupID: setupID)
    }

    func controller(_ id: String) -> PairedController? { controllers.first { $0.id == id } }
}
