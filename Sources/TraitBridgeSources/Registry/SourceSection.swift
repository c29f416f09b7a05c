public import TraitBridgeJSON
public import TraitBridgeModel

/// The checks every family's config section shares, so each key reads and fails the same way
/// in every section ("expected a whole number of seconds > 0" at its JSON path).
public enum SourceSection {
    /// The members of an object section, each key checked against `allowed`.
    public static func members(_ value: JSON, at path: JSONPath, allowed: [String], shape: String? = nil)
        throws(SourceSettingsError) -> [(key: String, value: JSON, path: JSONPath)]
    {
        guard value.kind == .object else {
            throw SourceSettingsError(
                path, shape ?? "expected an object {\(allowed.map { "\"\($0)\"" }.joined(separator: ", "))}")
        }
        var members: [(key: String, value: JSON, path: JSONPath)] = []
        for (key, field) in value.members {
            let fieldPath = path.appending(key)
            guard allowed.contains(key) else {
                throw SourceSettingsError(
                    fieldPath, "unknown key '\(key)'; allowed: \(allowed.joined(separator: ", "))")
            }
            members.append((key, field, fieldPath))
        }
        return members
    }

    /// A section that may be one object or a list of them (several instances), each with its path.
    public static func sections(_ value: JSON, at path: JSONPath, family: String)
        throws(SourceSettingsError) -> [(value: JSON, path: JSONPath)]
    {
        guard value.kind == .array else { return [(value, path)] }
        let sections = value.elements.enumerated().map { ($0.element, path.appending($0.offset)) }
        guard !sections.isEmpty else {
            throw SourceSettingsError(path, "expected a \(family) section, or a list of them")
        }
        return sections
    }

    /// A name that may stand in a topic level (an instance's name, a base topic): not empty, no
    /// wildcard.
    public static func topicWord(_ value: JSON, at path: JSONPath) throws(SourceSettingsError) -> String {
        guard let text = value.string, !text.isEmpty, !text.contains("+"), !text.contains("#") else {
            throw SourceSettingsError(path, "expected a non-empty string without + or #")
        }
        return text
    }

    public static func locality(_ value: JSON, at path: JSONPath) throws(SourceSettingsError) -> TraitLocality {
        guard let text = value.string, let locality = TraitLocality(rawValue: text) else {
            throw SourceSettingsError(path, "locality must be one of direct, localPeer, remote")
        }
        return locality
    }

    public static func seconds(_ value: JSON, at path: JSONPath) throws(SourceSettingsError) -> Duration {
        guard let seconds = value.int64, seconds > 0, seconds <= 31_536_000 else {
            throw SourceSettingsError(path, "expected a whole number of seconds > 0 (at most 31536000, a year)")
        }
        return .seconds(seconds)
    }

    public static func flag(_ value: JSON, at path: JSONPath) throws(SourceSettingsError) -> Bool {
        guard let flag = value.bool else { throw SourceSettingsError(path, "expected true or false") }
        return flag
    }

    /// A topic prefix: not empty, no wildcard, and (unless allowed) no trailing `/`.
    public static func topicPrefix(_ value: JSON, at path: JSONPath, mayEndWithSlash: Bool = false)
        throws(SourceSettingsError) -> String
    {
        guard let text = value.string, !text.isEmpty, !text.contains("+"), !text.contains("#"),
            mayEndWithSlash || !text.hasSuffix("/")
        else {
            throw SourceSettingsError(
                path,
                "expected a non-empty topic prefix without + or #"
                    + (mayEndWithSlash ? "" : " and without a trailing /"))
        }
        return text
    }

    /// Two instances of one family need their own names (and whatever else `key` says).
    public static func requireUnique(
        _ instances: [SourceInstance], at paths: [JSONPath], family: String, key: String = "instance",
        value: (SourceInstance) -> String = \.name
    ) throws(SourceSettingsError) {
        var seen: Set<String> = []
        for (instance, path) in zip(instances, paths) where !seen.insert(value(instance)).inserted {
            throw SourceSettingsError(
                path.appending(key),
                "\(key) '\(value(instance))' is used by another \(family) section; give each its own")
        }
    }
}
