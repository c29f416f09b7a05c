import FoundationEssentials
import TraitBridgeModel

/// Changes of one series stored together, one row a block: a batch's changes of a series cost one
/// row and one index entry instead of one each (SQLite's two B-tree inserts were 8.9k of the 13k
/// instructions a change cost, and every commit wrote a page per series a batch touched).
///
/// A block holds changes in time order, at most ``capacity`` of them over at most ``span`` of time,
/// so that pruning by age, which removes whole blocks, keeps the last days to the minute. The bytes
/// are self-contained (the times too), read by a decoder that never traps: a block this version
/// cannot read gives the changes before the odd one.
struct HistoryBlock {
    /// One stored change: when, and what.
    struct Entry: Equatable {
        var at: Int64
        var change: HistoryRecord.Change
    }

    static let capacity = 512
    /// Milliseconds from a block's first change to its last.
    static let span: Int64 = 60_000

    private(set) var bytes: [UInt8] = []
    private(set) var count = 0
    private(set) var firstAt: Int64 = 0
    private(set) var lastAt: Int64 = 0

    /// Whether a change at `at` belongs in this block: room left, not before its last change (a clock
    /// stepped back starts a new block), within its span.
    func accepts(at: Int64) -> Bool {
        guard count > 0 else { return true }
        let (elapsed, overflow) = at.subtractingReportingOverflow(firstAt)
        return count < Self.capacity && at >= lastAt && !overflow && elapsed <= Self.span
    }

    mutating func append(at: Int64, _ change: HistoryRecord.Change) {
        if count == 0 { firstAt = at }
        let previous = count == 0 ? 0 : lastAt
        Self.appendSigned(at &- previous, to: &bytes)
        lastAt = at
        count += 1
        switch change {
        case .connectivity(let connectivity):
            bytes.append(UInt8(Kind.connectivity.rawValue))
            for text in [
                connectivity.state.rawValue, connectivity.locality.rawValue, connectivity.reasonCode,
                connectivity.reason,
            ] {
                Self.appendText(text, to: &bytes)
            }
        case .notification(let text):
            bytes.append(UInt8(Kind.notification.rawValue))
            Self.appendText(text, to: &bytes)
        case .value(let value):
            switch value {
            case .null: bytes.append(UInt8(Kind.null.rawValue))
            case .bool(let flag): bytes.append(contentsOf: [UInt8(Kind.bool.rawValue), flag ? 1 : 0])
            case .int(let number):
                bytes.append(UInt8(Kind.int.rawValue))
                Self.appendSigned(number, to: &bytes)
            case .double(let number):
                bytes.append(UInt8(Kind.double.rawValue))
                withUnsafeBytes(of: number.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            case .string(let text):
                bytes.append(UInt8(Kind.string.rawValue))
                Self.appendText(text, to: &bytes)
            case .list, .structure:
                bytes.append(UInt8(Kind.json.rawValue))
                let json = (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
                Self.appendText(json, to: &bytes)
            }
        }
    }

    /// A block's changes read back, oldest first; where the bytes stop making sense, the changes before.
    static func decode(_ bytes: [UInt8]) -> [Entry] {
        var reader = Reader(bytes: bytes)
        var entries: [Entry] = []
        var at: Int64 = 0
        while !reader.isAtEnd {
            guard let delta = reader.signed(), let kind = reader.byte().flatMap({ Kind(rawValue: Int64($0)) })
            else { break }
            at = at &+ delta
            let change: HistoryRecord.Change
            switch kind {
            case .null: change = .value(.null)
            case .bool:
                guard let flag = reader.byte() else { return entries }
                change = .value(.bool(flag != 0))
            case .int:
                guard let number = reader.signed() else { return entries }
                change = .value(.int(number))
            case .double:
                guard let bits = reader.fixed64() else { return entries }
                change = .value(.double(Double(bitPattern: bits)))
            case .string:
                guard let text = reader.text() else { return entries }
                change = .value(.string(text))
            case .json:
                guard let text = reader.text() else { return entries }
                change = .value((try? JSONDecoder().decode(AttributeValue.self, from: Data(text.utf8))) ?? .null)
            case .notification:
                guard let text = reader.text() else { return entries }
                change = .notification(text)
            case .connectivity:
                guard let state = reader.text(), let locality = reader.text(), let code = reader.text(),
                    let reason = reader.text()
                else { return entries }
                if let state = TraitConnectivityState(rawValue: state), let locality = TraitLocality(rawValue: locality)
                {
                    change = .connectivity(
                        HistoryConnectivity(state: state, locality: locality, reasonCode: code, reason: reason))
                } else {
                    change = .value(.null)
                }
            }
            entries.append(Entry(at: at, change: change))
        }
        return entries
    }

    typealias Kind = HistoryValueCoding.Kind

    /// Zigzag, then 7 bits a byte (small magnitudes, either sign, in few bytes).
    private static func appendSigned(_ value: Int64, to bytes: inout [UInt8]) {
        var rest = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        let utf8 = text.utf8
        appendSigned(Int64(utf8.count), to: &bytes)
        bytes.append(contentsOf: utf8)
    }

    /// Bounds-checked reads: nil past the end or on a malformed number.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var isAtEnd: Bool { position >= bytes.count }

        mutating func byte() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func signed() -> Int64? {
            var result: UInt64 = 0
            for shift in stride(from: UInt64(0), to: 70, by: 7) {
                guard let byte = byte() else { return nil }
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return Int64(bitPattern: result >> 1) ^ -Int64(bitPattern: result & 1) }
            }
            return nil  // more than ten bytes: not a number this writer made
        }

        mutating func fixed64() -> UInt64? {
            guard bytes.count - position >= 8 else { return nil }
            var bits: UInt64 = 0
            for index in 0..<8 { bits |= UInt64(bytes[position + index]) << (8 * UInt64(index)) }
            position += 8
            return bits
        }

        mutating func text() -> String? {
            guard let length = signed(), length >= 0, length <= bytes.count - position else { return nil }
            let end = position + Int(truncatingIfNeeded: length)  // within the bytes: checked above
            defer { position = end }
            return String(decoding: bytes[position..<end], as: UTF8.self)
        }
    }
}
