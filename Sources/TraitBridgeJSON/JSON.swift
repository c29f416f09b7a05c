internal import CJSONC

/// The kinds of value a JSON text can hold.
public enum JSONKind: String, Sendable, CustomStringConvertible {
    case null, bool, number, string, array, object

    public var description: String { rawValue }
}

/// A read-only view of one value inside a ``JSONDocument``.
///
/// Views are cheap: a reference to the document plus a json-c pointer. Typed accessors return
/// `nil` when the value has another kind, so callers state what they accept and report the rest.
/// Integers never wrap: ``int64`` is `nil` for a number that does not fit, or has a fraction.
public struct JSON: @unchecked Sendable {  // the document is immutable after parsing
    let document: JSONDocument
    /// json-c object; `nil` is JSON `null` (json-c's own representation).
    let object: OpaquePointer?

    init(document: JSONDocument, object: OpaquePointer?) {
        self.document = document
        self.object = object
    }

    /// The kind of this value.
    public var kind: JSONKind {
        guard let object else { return .null }
        switch json_object_get_type(object) {
        case json_type_boolean: return .bool
        case json_type_int, json_type_double: return .number
        case json_type_string: return .string
        case json_type_array: return .array
        case json_type_object: return .object
        default: return .null
        }
    }

    public var isNull: Bool { object == nil }

    /// The value of a boolean; `nil` for any other kind (the string "true" is not a boolean).
    public var bool: Bool? {
        guard let object, json_object_get_type(object) == json_type_boolean else { return nil }
        return json_object_get_boolean(object) != 0
    }

    /// The value of a string; `nil` for any other kind.
    public var string: String? {
        guard let object, json_object_get_type(object) == json_type_string else { return nil }
        let length = Int(json_object_get_string_len(object))
        guard let pointer = json_object_get_string(object) else { return "" }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// Whether this is a string equal to `expected`, compared byte for byte without allocating.
    public func isString(_ expected: String) -> Bool {
        guard let object, json_object_get_type(object) == json_type_string else { return false }
        let length = Int(json_object_get_string_len(object))
        guard let pointer = json_object_get_string(object) else { return expected.isEmpty }
        var expected = expected
        return expected.withUTF8 { wanted in
            wanted.count == length
                && UnsafeRawBufferPointer(start: pointer, count: length).elementsEqual(UnsafeRawBufferPointer(wanted))
        }
    }

    /// An integer that fits in `Int64`; `nil` for a fraction, a non-number, or an out-of-range integer.
    public var int64: Int64? {
        guard let object else { return nil }
        switch json_object_get_type(object) {
        case json_type_int:
            let value = json_object_get_int64(object)
            if value == Int64.max, json_object_get_uint64(object) > UInt64(Int64.max) { return nil }
            return value
        case json_type_double:
            let value = json_object_get_double(object)
            guard value.rounded() == value, let exact = Int64(exactly: value) else { return nil }
            return exact
        default:
            return nil
        }
    }

    /// A non-negative integer that fits in `UInt64`; `nil` otherwise.
    public var uint64: UInt64? {
        guard let object else { return nil }
        if json_object_get_type(object) == json_type_int {
            let signed = json_object_get_int64(object)
            if signed < 0 { return nil }
            return signed == Int64.max ? json_object_get_uint64(object) : UInt64(signed)
        }
        guard let signed = int64, signed >= 0 else { return nil }
        return UInt64(signed)
    }

    /// Any number as a `Double` (integers beyond 2^53 lose precision); `nil` for other kinds.
    public var double: Double? {
        guard let object else { return nil }
        switch json_object_get_type(object) {
        case json_type_double:
            return json_object_get_double(object)
        case json_type_int:
            let signed = json_object_get_int64(object)
            if signed == Int64.max { return Double(json_object_get_uint64(object)) }
            return Double(signed)
        default:
            return nil
        }
    }

    /// Whether a number was written without fraction or exponent.
    public var isInteger: Bool {
        guard let object else { return false }
        return json_object_get_type(object) == json_type_int
    }

    /// The member `key` of an object; `nil` when this is not an object or has no such key.
    /// A member whose value is `null` is returned as a view whose ``isNull`` is true.
    public subscript(key: String) -> JSON? {
        guard let object, json_object_get_type(object) == json_type_object else { return nil }
        var member: OpaquePointer?
        let found = key.withCString { json_object_object_get_ex(object, $0, &member) }
        return found != 0 ? JSON(document: document, object: member) : nil
    }

    /// The element at `index` of an array; `nil` when out of range or not an array.
    public subscript(index: Int) -> JSON? {
        guard let object, json_object_get_type(object) == json_type_array, index >= 0 else { return nil }
        guard index < json_object_array_length(object) else { return nil }
        return JSON(document: document, object: json_object_array_get_idx(object, index))
    }

    /// Number of elements (array) or members (object); 0 for anything else.
    public var count: Int {
        guard let object else { return 0 }
        switch json_object_get_type(object) {
        case json_type_array: return Int(json_object_array_length(object))
        case json_type_object: return Int(json_object_object_length(object))
        default: return 0
        }
    }

    /// The elements of an array in order; empty for anything else.
    public var elements: [JSON] {
        guard let object, json_object_get_type(object) == json_type_array else { return [] }
        let length = json_object_array_length(object)
        var result: [JSON] = []
        result.reserveCapacity(length)
        for index in 0..<length {
            result.append(JSON(document: document, object: json_object_array_get_idx(object, index)))
        }
        return result
    }

    /// The members of an object in text order; empty for anything else.
    public var members: [(key: String, value: JSON)] {
        guard let object, json_object_get_type(object) == json_type_object else { return [] }
        var result: [(key: String, value: JSON)] = []
        result.reserveCapacity(Int(json_object_object_length(object)))
        var iterator = json_object_iter_begin(object)
        var end = json_object_iter_end(object)
        while json_object_iter_equal(&iterator, &end) == 0 {
            let key = String(cString: json_object_iter_peek_name(&iterator))
            let value = json_object_iter_peek_value(&iterator)
            result.append((key, JSON(document: document, object: value)))
            json_object_iter_next(&iterator)
        }
        return result
    }

    /// The value at `path` below this one, or `nil` when any step is missing.
    public subscript(path path: JSONPath) -> JSON? {
        var current: JSON? = self
        for component in path.components {
            switch component {
            case .key(let key): current = current?[key]
            case .index(let index): current = current?[index]
            }
            if current == nil { return nil }
        }
        return current
    }
}
