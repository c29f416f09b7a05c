/// HAP's type-length-value encoding (HAP §14.1): one byte of type, one of length, up to 255 bytes
/// of value; a longer value is split into fragments of the same type that follow each other.
/// Pairing messages are TLV8 both ways; they come from the network, so decoding is bounded.
public struct TLV8: Sendable, Equatable {
    /// The item types HAP's pairing uses (HAP §5.15, table 5-6).
    public enum Tag: UInt8, Sendable {
        case method = 0x00
        case identifier = 0x01
        case salt = 0x02
        case publicKey = 0x03
        case proof = 0x04
        case encryptedData = 0x05
        case state = 0x06
        case error = 0x07
        case retryDelay = 0x08
        case certificate = 0x09
        case signature = 0x0A
        case permissions = 0x0B
        case fragmentData = 0x0C
        case fragmentLast = 0x0D
        case flags = 0x13
        case separator = 0xFF
    }

    /// The error codes of a pairing answer (HAP §5.15, table 5-5).
    public enum PairingError: UInt8, Error, Sendable {
        case unknown = 0x01
        case authentication = 0x02
        case backoff = 0x03
        case maxPeers = 0x04
        case maxTries = 0x05
        case unavailable = 0x06
        case busy = 0x07
    }

    /// Why bytes are not a TLV8 message.
    public enum DecodeError: Error, Equatable, CustomStringConvertible {
        case truncated(offset: Int)
        case tooManyItems(limit: Int)

        public var description: String {
            switch self {
            case .truncated(let offset): "TLV8: an item at byte \(offset) is longer than the message"
            case .tooManyItems(let limit): "TLV8: more than \(limit) items (the bound of a pairing message)"
            }
        }
    }

    /// Items in order, fragments joined: (type, value).
    public private(set) var items: [(tag: UInt8, value: [UInt8])]

    public init(_ items: [(tag: UInt8, value: [UInt8])] = []) { self.items = items }

    /// The bound on a message's items (a pairing message has at most a dozen; /pairings lists
    /// 16 controllers of 4 items each).
    public static let itemLimit = 256

    public static func == (lhs: TLV8, rhs: TLV8) -> Bool {
        lhs.items.count == rhs.items.count
            && zip(lhs.items, rhs.items).allSatisfy { $0.tag == $1.tag && $0.value == $1.value }
    }

    /// Decodes `bytes`, joining the fragments of a long value.
    public init(decoding bytes: [UInt8]) throws(DecodeError) {
        var items: [(tag: UInt8, value: [UInt8])] = []
        var offset = 0
        var previousWasFull = false
        while offset < bytes.count {
            guard offset + 2 <= bytes.count else { throw .truncated(offset: offset) }
            let tag = bytes[offset]
            let length = Int(bytes[offset + 1])
            guard offset + 2 + length <= bytes.count else { throw .truncated(offset: offset) }
            let value = bytes[(offset + 2)..<(offset + 2 + length)]
            if previousWasFull, let last = items.last, last.tag == tag {
                items[items.count - 1].value.append(contentsOf: value)
            } else {
                guard items.count < Self.itemLimit else { throw .tooManyItems(limit: Self.itemLimit) }
                items.append((tag, Array(value)))
            }
            previousWasFull = length == 255
            offset += 2 + length
        }
        self.items = items
    }

    /// The first value of `tag`.
    public subscript(tag: Tag) -> [UInt8]? { items.first { $0.tag == tag.rawValue }?.value }

    /// A one-byte value of `tag` (state, method, error).
    public func byte(_ tag: Tag) -> UInt8? {
        guard let value = self[tag], value.count == 1 else { return nil }
        return value[0]
    }

    public mutating func append(_ tag: Tag, _ value: [UInt8]) { items.append((tag.rawValue, value)) }
    public mutating func append(_ tag: Tag, byte: UInt8) { items.append((tag.rawValue, [byte])) }

    /// The bytes, each value over 255 bytes split into fragments; two items of one type in a row
    /// get a separator between them, so they do not read back as one.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        var previous: UInt8?
        for item in items {
            if previous == item.tag { bytes.append(contentsOf: [Tag.separator.rawValue, 0]) }
            var rest = item.value[...]
            repeat {
                let chunk = rest.prefix(255)
                bytes.append(item.tag)
                bytes.append(UInt8(chunk.count))
                bytes.append(contentsOf: chunk)
                rest = rest.dropFirst(chunk.count)
            } while !rest.isEmpty
            previous = item.tag
        }
        return bytes
    }

    /// A pairing answer saying `error` at `state`.
    public static func error(_ error: PairingError, state: UInt8) -> TLV8 {
        var answer = TLV8()
        answer.append(.state, byte: state)
        answer.append(.error, byte: error.rawValue)
        return answer
    }
}
