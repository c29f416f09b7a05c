@preconcurrency import Crypto

/// A verified session's framing (HAP §6.5.2): each frame is a two-byte little-endian length (at
/// most 1024, also the frame's additional data), that many encrypted bytes and a 16-byte tag;
/// each direction has its own key and counts its frames for the nonce. A frame that does not
/// open (forged, replayed, reordered) ends the session.
struct SessionCipher: Sendable {
    static let frameLimit = 1024
    private let readKey: SymmetricKey  // what this end sends (accessory → controller for an accessory)
    private let writeKey: SymmetricKey  // what this end receives
    private var sent: UInt64 = 0
    private var received: UInt64 = 0
    private var buffer: [UInt8] = []

    /// Why the session ends.
    enum FrameError: Error, Equatable {
        case tooLong(Int)
        case forged(frame: UInt64)
    }

    /// Which end of the session this is: an accessory reads with the write key and the other way round.
    enum Role { case accessory, controller }

    init(sharedSecret: [UInt8], role: Role = .accessory) {
        let read = HAPCrypto.derive(sharedSecret, salt: "Control-Salt", info: "Control-Read-Encryption-Key")
        let write = HAPCrypto.derive(sharedSecret, salt: "Control-Salt", info: "Control-Write-Encryption-Key")
        (readKey, writeKey) = role == .accessory ? (read, write) : (write, read)
    }

    /// The plaintext of every whole frame in `bytes` (and what came before); a partial frame waits.
    mutating func open(_ bytes: [UInt8]) throws(FrameError) -> [UInt8] {
        buffer.append(contentsOf: bytes)
        var plain: [UInt8] = []
        var offset = 0
        while buffer.count - offset >= 2 {
            let length = Int(buffer[offset]) | Int(buffer[offset + 1]) << 8
            guard length <= Self.frameLimit else { throw .tooLong(length) }
            guard buffer.count - offset >= 2 + length + 16 else { break }
            let aad = Array(buffer[offset..<(offset + 2)])
            let sealed = Array(buffer[(offset + 2)..<(offset + 2 + length + 16)])
            guard let frame = HAPCrypto.open(sealed, key: writeKey, nonce: HAPCrypto.counterNonce(received), aad: aad)
            else { throw .forged(frame: received) }
            received += 1
            plain.append(contentsOf: frame)
            offset += 2 + length + 16
        }
        buffer.removeFirst(offset)
        return plain
    }

    /// `plaintext` as frames of at most 1024 bytes.
    mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var rest = plaintext[...]
        repeat {
            let chunk = Array(rest.prefix(Self.frameLimit))
            rest = rest.dropFirst(chunk.count)
            let aad = [UInt8(chunk.count & 0xFF), UInt8(chunk.count >> 8)]
            out.append(contentsOf: aad)
            out.append(contentsOf: HAPCrypto.seal(chunk, key: readKey, nonce: HAPCrypto.counterNonce(sent), aad: aad))
            sent += 1
        } while !rest.isEmpty
        return out
    }
}
