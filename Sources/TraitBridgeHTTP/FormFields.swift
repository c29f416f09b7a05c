/// `application/x-www-form-urlencoded` fields (an OAuth form post, a query string), read with
/// bounds: at most ``maxFields`` fields, each name and value percent-decoded; a malformed escape is
/// kept as it is rather than failing the whole form.
public struct FormFields: Sendable, Hashable {
    public static let maxFields = 64
    public private(set) var pairs: [(name: String, value: String)] = []

    public init(_ bytes: some Collection<UInt8>) {
        for part in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard pairs.count < Self.maxFields else { break }
            let equals = part.firstIndex(of: UInt8(ascii: "="))
            let name = Self.decode(part[..<(equals ?? part.endIndex)])
            let value = equals.map { Self.decode(part[part.index(after: $0)...]) } ?? ""
            pairs.append((name, value))
        }
    }

    /// The first value of `name`.
    public subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// Percent-decoding, `+` as a space; invalid UTF-8 is repaired, not refused.
    static func decode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), let high = bytes.index(index, offsetBy: 1, limitedBy: bytes.endIndex),
                high != bytes.endIndex, let low = bytes.index(high, offsetBy: 1, limitedBy: bytes.endIndex),
                low != bytes.endIndex, let h = hexValue(bytes[high]), let l = hexValue(bytes[low])
            {
                output.append(h << 4 | l)
                index = low
            } else {
                output.append(byte)
            }
            index = bytes.index(after: index)
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Percent-encodes a value for a query string (unreserved characters kept).
    public static func encode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += "%" + Secrets.hex([byte]).uppercased()
            }
        }
        return output
    }

    public static func == (lhs: FormFields, rhs: FormFields) -> Bool {
        lhs.pairs.map(\.name) == rhs.pairs.map(\.name) && lhs.pairs.map(\.value) == rhs.pairs.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        for pair in pairs {
            hasher.combine(pair.name)
            hasher.combine(pair.value)
        }
    }
}
