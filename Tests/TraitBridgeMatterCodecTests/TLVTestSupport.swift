import Testing
import TraitBridgeMatterCodec
import TraitBridgeTesting

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

/// Shorthands for the tags of the spec's and the SDK's examples.
extension TLVTag {
    /// Vendor 0xFFF1, profile 0xDEED: the fully qualified tags of Matter Core spec A.12.
    static func specProfile(_ tag: UInt32) -> TLVTag { .fullyQualified(vendorID: 0xFFF1, profile: 0xDEED, tag: tag) }
    /// TestProfile_1 = 0xAABBCCDD of connectedhomeip src/lib/core/tests/TestTLV.cpp.
    static func sdkProfile(_ tag: UInt32) -> TLVTag { .fullyQualified(vendorID: 0xAABB, profile: 0xCCDD, tag: tag) }
}

/// `name = value` members, for building expected structures and lists tersely.
func member(_ tag: TLVTag, _ value: TLVValue) -> TLVElement { TLVElement(tag: tag, value: value) }
