/// The members of a JSON value a reader uses. A zigbee2mqtt device entry is 4–5 KB of which the
/// bridge reads about a third (`endpoints`, `definition.options`, the exposes' descriptions and
/// labels are for people); building a json-c tree of the rest, then freeing it, was most of the
/// cost of a 10 000-device `bridge/devices`. With a projection the whole text is still checked
/// (strict JSON, valid UTF-8, nesting depth), but only what is kept is handed to json-c.
///
/// A projection applies to objects; an array hands its projection to each element; a scalar is
/// kept as it is. A member whose key is written with escapes is always kept (its name is only
/// known once decoded), so a projection never hides a member a reader asked for.
public indirect enum JSONProjection: Sendable {
    /// Everything, as written.
    case all
    /// Every member except these keys, here and in every object below.
    case allExcept(Set<String>)
    /// Only these members, each read with its own projection.
    case members([String: JSONProjection])
    /// Every member, each read with this projection: an object keyed by names the reader does not
    /// know in advance (a description's device types, their traits).
    case eachMember(JSONProjection)
    /// The value's text (itself projected), checked, kept as a JSON string: for a reader that
    /// compares it with texts it has read already before reading it — the same attribute metadata of
    /// thousands of restored devices, the same exposes of thousands of bulbs of one model.
    case text(JSONProjection)
}

extension JSONDocument {
    /// ``parse(_:maxDepth:projection:)-(UnsafeRawBufferPointer,_,_)`` on an array of bytes (an MQTT payload).
    public static func parse(
        _ bytes: [UInt8], maxDepth: Int = defaultMaxDepth, projection: JSONProjection
    ) throws(JSONParseError) -> JSONDocument {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try parse(buffer, maxDepth: maxDepth, projection: projection) }
        }.get()
    }

    /// Parses `bytes` keeping only what `projection` names. Throws what
    /// ``parse(_:maxDepth:)-(UnsafeRawBufferPointer,_)`` throws for the same text: when the text is
    /// not JSON, json-c reads the whole of it to say where and why.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth, projection: JSONProjection
    ) throws(JSONParseError) -> JSONDocument {
        if case .all = projection { return try parse(bytes, maxDepth: maxDepth) }
        var projector = JSONProjector(bytes: bytes, maxDepth: maxDepth)
        let kept: [UInt8]
        do {
            kept = try projector.project(JSONProjector.Rule(projection))
        } catch {
            // Not JSON: json-c says where and why, in the same words as without a projection. (It
            // cannot accept what the check refused; if it ever did, its reading stands.)
            return try parse(bytes, maxDepth: maxDepth)
        }
        return try parse(kept, maxDepth: maxDepth)
    }
}
