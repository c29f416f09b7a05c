extension TLVDecoder {
    /// Why bytes are not a Matter TLV element: what was wrong (`kind`, to match on), at which byte
    /// (`offset`, from the start of the buffer) and inside which member (`path`).
    public struct DecodeError: Error, Equatable, CustomStringConvertible {
        /// What was wrong.
        public enum Kind: Sendable, Equatable {
            /// The input holds no element where one should begin.
            case noElement
            /// A fixed-size field (tag, integer, float or length) needs more bytes than remain.
            case truncated(needed: Int, remaining: Int)
            /// A string's length field declares more bytes than remain.
            case lengthBeyondInput(declared: UInt64, remaining: Int)
            /// The control byte's element type is one of 0x19–0x1F, which the spec reserves.
            case reservedElementType(UInt8)
            /// An End-of-Container (0x18) with no container open.
            case strayEndOfContainer
            /// An End-of-Container carrying a tag; it must be anonymous.
            case taggedEndOfContainer(TLVTag)
            /// The input ends inside the container opened at `openedAt`.
            case unclosedContainer(TLVType, openedAt: Int)
            /// A container opened with `limit` containers already open.
            case tooDeep(limit: Int)
            /// More than `limit` elements.
            case tooManyElements(limit: Int)
            /// A UTF-8 string's bytes are not UTF-8; `offset` is the first bad byte.
            case invalidUTF8
            /// A structure member without a tag.
            case anonymousStructureMember
            /// An array element with a tag.
            case taggedArrayElement(TLVTag)
            /// A context-specific tag on an element that is in no structure or list.
            case contextTagOutsideContainer(UInt8)
            /// A structure member whose tag an earlier member of the same structure has.
            case duplicateStructureMember(TLVTag)
            /// Bytes left after the one element `decode` expects.
            case trailingBytes(count: Int)
        }

        public var kind: Kind
        /// The byte, counted from the start of the buffer, where the problem is.
        public var offset: Int
        /// The member the problem is in, from the outermost element: context tags as numbers,
        /// anonymous elements as `[index]`, joined by dots (`5.1`, `1.[0].2`); empty at the top.
        public var path: String

        public init(kind: Kind, offset: Int, path: String) {
            self.kind = kind
            self.offset = offset
            self.path = path
        }

        public var description: String {
            "Matter TLV, byte \(offset)" + (path.isEmpty ? "" : " (in \(path))") + ": " + explanation
        }

        private var explanation: String {
            switch kind {
            case .noElement:
                "no element here — the message is empty or ends early"
            case .truncated(let needed, let remaining):
                "a field needs \(needed) bytes but \(remaining) remain — the message was cut short"
            case .lengthBeyondInput(let declared, let remaining):
                "a string's length says \(declared) bytes but \(remaining) remain — the message was cut short "
                    + "or the length field is corrupt"
            case .reservedElementType(let type):
                "element type 0x\(String(type, radix: 16, uppercase: true)) is reserved (0x19–0x1F) — "
                    + "this is not Matter TLV, or the bytes before it are misaligned"
            case .strayEndOfContainer:
                "an End-of-Container (0x18) with no container open — the message closes more than it opens"
            case .taggedEndOfContainer(let tag):
                "an End-of-Container carries tag \(tag) — it must be the single anonymous byte 0x18"
            case .unclosedContainer(let type, let openedAt):
                "the \(type) opened at byte \(openedAt) is never closed by End-of-Container (0x18) — "
                    + "the message was cut short"
            case .tooDeep(let limit):
                "containers nest deeper than \(limit) levels — no Matter message nests this deep; raise "
                    + "TLVDecoder.Limits.maxDepth only for a known schema that does"
            case .tooManyElements(let limit):
                "more than \(limit) elements — raise TLVDecoder.Limits.maxElements if a real payload needs more"
            case .invalidUTF8:
                "a UTF-8 string holds bytes that are not UTF-8 — bytes that are not text belong in an octet string"
            case .anonymousStructureMember:
                "a structure member has no tag — structure members must be tagged; use a list or array "
                    + "for anonymous elements"
            case .taggedArrayElement(let tag):
                "an array element carries tag \(tag) — array elements must be anonymous; use a list for tagged ones"
            case .contextTagOutsideContainer(let number):
                "context tag \(number) on an element in no structure or list — a context tag only means "
                    + "something inside one; a message is usually an anonymous structure"
            case .duplicateStructureMember(let tag):
                "tag \(tag) appears twice in one structure — structure members must have distinct tags"
            case .trailingBytes(let count):
                "\(count) bytes follow the element — use decodeAll for a sequence, or the message length is wrong"
            }
        }
    }
}
