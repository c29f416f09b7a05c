import TraitBridgeMatterCodec

/// One field of a received message, opened for strict reading: its value, where it starts, and its path
/// from the message, so every error names all three. Members are found by context tag in any order and
/// unknown tags are skipped, as connectedhomeip's parsers do ("unknown tags are ignored for forward
/// compatibility", `MessageDef/*Parser`); types and widths are checked exactly.
struct FieldReader {
    /// Interaction Model messages nest seven containers deep at most (WriteRequest → WriteRequests →
    /// AttributeDataIB → Data → a list of structures holding lists); 24 leaves room for cluster data. The
    /// element bound is the codec's: a UDP message holds at most ~1200 elements.
    static let limits = TLVDecoder.Limits(maxDepth: 24, maxElements: 4096)

    let message: String
    let field: String
    let value: TLVValue
    let location: TLVLocation

    /// The payload's anonymous structure, as received.
    init(payload: [UInt8], message: String) throws(InteractionMessageError) {
        let element: TLVElement
        do { element = try TLVDecoder(limits: Self.limits).decode(payload) } catch {
            throw InteractionMessageError(
                message: message, field: message + (error.path.isEmpty ? "" : ".\(error.path)"),
                offset: error.offset, kind: .malformedTLV(error.kind))
        }
        self.message = message
        field = message
        value = element.value
        location = TLVLocation.walk(payload)?.location ?? TLVLocation(offset: 0)
        guard case .structure = element.value else {
            throw fail(.wrongType(expected: .structure, found: element.value.type))
        }
    }

    private init(message: String, field: String, value: TLVValue, location: TLVLocation) {
        self.message = message
        self.field = field
        self.value = value
        self.location = location
    }

    func fail(_ kind: InteractionMessageError.Kind) -> InteractionMessageError {
        InteractionMessageError(message: message, field: field, offset: location.offset, kind: kind)
    }

    /// The member with context tag `tag`, named `name` in errors; nil when absent.
    func optional(_ tag: UInt8, _ name: String) -> FieldReader? {
        guard let members = value.members, let index = members.firstIndex(where: { $0.tag == .context(tag) })
        else { return nil }
        let memberLocation = index < location.members.count ? location.members[index] : location
        return FieldReader(
            message: message, field: "\(field).\(name)", value: members[index].value, location: memberLocation)
    }

    /// The member with context tag `tag`, which must be there.
    func required(_ tag: UInt8, _ name: String) throws(InteractionMessageError) -> FieldReader {
        guard let member = optional(tag, name) else {
            throw InteractionMessageError(
                message: message, field: "\(field).\(name)", offset: location.offset, kind: .missing)
        }
        return member
    }

    /// This field as a container of `type`; throws when it is another type.
    func expect(_ type: TLVType) throws(InteractionMessageError) -> FieldReader {
        guard value.type == type else { throw fail(.wrongType(expected: type, found: value.type)) }
        return self
    }

    /// The elements of this array field, each named `field[i]`.
    func elements() throws(InteractionMessageError) -> [FieldReader] {
        guard case .array(let values) = value else { throw fail(.wrongType(expected: .array, found: value.type)) }
        return values.enumerated().map { index, element in
            FieldReader(
                message: message, field: "\(field)[\(index)]", value: element,
                location: index < location.members.count ? location.members[index] : location)
        }
    }

    /// This field as an unsigned integer that fits `T`.
    func uint<T: FixedWidthInteger & UnsignedInteger>(_: T.Type = T.self) throws(InteractionMessageError) -> T {
        guard case .unsigned(let number) = value else {
            throw fail(.wrongType(expected: .unsignedInteger, found: value.type))
        }
        guard let fitted = T(exactly: number) else {
            throw fail(.outOfRange(value: "\(number)", expected: "\(T.self)"))
        }
        return fitted
    }

    /// This field as a boolean.
    func bool() throws(InteractionMessageError) -> Bool {
        guard case .bool(let flag) = value else { throw fail(.wrongType(expected: .boolean, found: value.type)) }
        return flag
    }

    /// The array member `tag` read element by element; empty when absent.
    func array<T>(
        _ tag: UInt8, _ name: String, _ read: (FieldReader) throws(InteractionMessageError) -> T
    ) throws(InteractionMessageError) -> [T] {
        guard let member = optional(tag, name) else { return [] }
        var result: [T] = []
        for element in try member.elements() { result.append(try read(element)) }
        return result
    }

    /// The InteractionModelRevision (tag 0xFF): optional on receipt, as connectedhomeip only logs it.
    func revision() throws(InteractionMessageError) -> UInt8? {
        try optional(0xFF, "InteractionModelRevision")?.uint(UInt8.self)
    }
}

extension Optional where Wrapped == FieldReader {
    /// The optional member's unsigned value, when present.
    func uint<T: FixedWidthInteger & UnsignedInteger>(_: T.Type = T.self) throws(InteractionMessageError) -> T? {
        guard let reader = self else { return nil }
        return try reader.uint(T.self)
    }

    /// The optional member's boolean, when present.
    func bool() throws(InteractionMessageError) -> Bool? {
        guard let reader = self else { return nil }
        return try reader.bool()
    }
}
