import Testing
import TraitBridgeMatterCodec

/// Bytes from hex written as the spec writes them ("15 24 01 2a 18"); anything but hex digits is
/// ignored, so commas and spaces may stay.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter(\.isHexDigit))
    precondition(digits.count.isMultiple(of: 2), "odd number of hex digits in a test vector")
    return stride(from: 0, to: digits.count, by: 2).map { index in
        UInt8(String(digits[index...index + 1]), radix: 16) ?? 0
    }
}

/// A fixed encoding and the element it stands for, named after the row or test it comes from.
struct TLVVector: Sendable, CustomTestStringConvertible {
    let name: String
    let element: TLVElement
    let bytes: [UInt8]

    init(_ name: String, _ value: TLVValue, _ bytes: String, tag: TLVTag = .anonymous) {
        self.name = name
        self.element = TLVElement(tag: tag, value: value)
        self.bytes = hex(bytes)
    }

    var testDescription: String { name }
}

/// xorshift64 (Marsaglia 2003): a deterministic stream of bytes for the fuzz loops, so a failure
/// reproduces from the seed alone.
struct XorShift {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }

    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    /// A number in 0..<bound (bound > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// Shorthands for the tags of the spec's and the SDK's examples.
extension TLVTag {
    /// Vendor 0xFFF1, profile 0xDEED: the fully qualified tags of Matter Core spec A.12.
    static func specProfile(_ tag: UInt32) -> TLVTag { .fullyQualified(vendorID: 0xFFF1, profile: 0xDEED, tag: tag) }
    /// TestProfile_1 = 0xAABBCCDD of connectedhomeip src/lib/core/tests/TestTLV.cpp.
    static func sdkProfile(_ tag: UInt32) -> TLVTag { .fullyQualified(vendorID: 0xAABB, profile: 0xCCDD, tag: tag) }
}

/// `name = value` members, for building expected structures and lists tersely.
func member(_ tag: TLVTag, _ value: TLVValue) -> TLVElement { TLVElement(tag: tag, value: value) }
