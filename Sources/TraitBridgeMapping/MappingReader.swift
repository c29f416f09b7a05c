import TraitBridgeJSON

/// Reads one JSON file of `mappings/` and collects every problem with its file, line:col and path.
///
/// Decoding code asks for fields by key ("a string, required"); a wrong kind, a missing field or an
/// unknown key (usually a typo) becomes a ``MappingProblem`` and decoding goes on, so one run of
/// `mappings validate` reports everything at once.
final class MappingReader {
    let file: String
    private let sourceMap: JSONSourceMap
    /// At most this many problems are located and kept per file: finding a place walks the text,
    /// so a file with a million mistakes would otherwise take minutes to report.
    static let problemLimit = 200
    private var located: [MappingProblem] = []
    private var unlisted = 0

    /// The problems found, and past the limit one more that says how many were not listed.
    var problems: [MappingProblem] {
        guard unlisted > 0 else { return located }
        return located + [MappingProblem(file: file, location: .init(line: 1, column: 1), path: .root,
                                         message: "\(unlisted) more problems not listed; fix the ones above and validate again")]
    }

    init(file: String, bytes: [UInt8]) {
        self.file = file
        self.sourceMap = JSONSourceMap(bytes: bytes)
    }

    func problem(_ path: JSONPath, _ message: String) {
        guard located.count < Self.problemLimit else {
            unlisted += 1
            return
        }
        located.append(MappingProblem(file: file, location: sourceMap.location(of: path), path: path, message: message))
    }

    /// Reports members not in `allowed` (keys starting with `$` are comments and always allowed).
    func checkKeys(_ object: JSON, at path: JSONPath, allowed: Set<String>) {
        for (key, _) in object.members where !key.hasPrefix("$") && !allowed.contains(key) {
            problem(path.appending(key), "unknown key '\(key)'; allowed: \(allowed.sorted().joined(separator: ", "))")
        }
    }

    func object(_ value: JSON?, at path: JSONPath) -> JSON? {
        guard let value else { return nil }
        guard value.kind == .object else {
            problem(path, "expected an object, found \(value.kind)")
            return nil
        }
        return value
    }

    func array(_ object: JSON, _ key: String, at path: JSONPath, required: Bool = false) -> [JSON] {
        guard let value = member(object, key, at: path, required: required) else { return [] }
        guard value.kind == .array else {
            problem(path.appending(key), "expected an array, found \(value.kind)")
            return []
        }
        return value.elements
    }

    func string(_ object: JSON, _ key: String, at path: JSONPath, required: Bool = false) -> String? {
        guard let value = member(object, key, at: path, required: required) else { return nil }
        guard let text = value.string else {
            problem(path.appending(key), "expected a string, found \(value.kind)")
            return nil
        }
        return text
    }

    func bool(_ object: JSON, _ key: String, at path: JSONPath) -> Bool? {
        guard let value = member(object, key, at: path, required: false) else { return nil }
        guard let flag = value.bool else {
            problem(path.appending(key), "expected true or false, found \(value.kind)")
            return nil
        }
        return flag
    }

    func number(_ object: JSON, _ key: String, at path: JSONPath) -> Double? {
        guard let value = member(object, key, at: path, required: false) else { return nil }
        guard let number = value.double, number.isFinite else {
            problem(path.appending(key), "expected a number, found \(value.kind)")
            return nil
        }
        return number
    }

    func nonNegativeInt(_ object: JSON, _ key: String, at path: JSONPath) -> Int? {
        guard let value = member(object, key, at: path, required: false) else { return nil }
        guard let integer = value.int64, integer >= 0, integer <= Int64(Int32.max) else {
            problem(path.appending(key), "expected a whole number ≥ 0, found \(value.value.serialized())")
            return nil
        }
        return Int(integer)
    }

    /// A hex id written `"0x0006"` (1–8 hex digits).
    func hexID(_ object: JSON, _ key: String, at path: JSONPath, required: Bool = false) -> UInt32? {
        guard let text = string(object, key, at: path, required: required) else { return nil }
        guard text.hasPrefix("0x"), (3...10).contains(text.count), let value = UInt32(text.dropFirst(2), radix: 16) else {
            problem(path.appending(key), "malformed id '\(text)'; write 1–8 hex digits after 0x, e.g. \"0x0006\"")
            return nil
        }
        return value
    }

    private func member(_ object: JSON, _ key: String, at path: JSONPath, required: Bool) -> JSON? {
        guard let value = object[key] else {
            if required { problem(path, "missing required key '\(key)'") }
            return nil
        }
        return value
    }
}
