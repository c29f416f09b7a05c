import Foundation

/// One Matter node dump for the simulated Matter Server, in either shape people keep them: the
/// node itself (`{"node_id": …, "attributes": {…}}`, as python-matter-server prints it) or Home
/// Assistant's fixture shape with the node under `"node"`. Checked before the server sees it, so
/// a bad dump is skipped with its reason instead of stopping the others.
enum MatterNodeDump {
    /// Why a dump cannot be used.
    struct Problem: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static let maxBytes = 16 << 20

    /// The node's JSON text, or what is wrong with the file.
    static func read(_ path: String) -> Result<String, Problem> {
        guard let data = FileManager.default.contents(atPath: path) else { return .failure(Problem("cannot read it")) }
        guard data.count <= maxBytes else {
            return .failure(Problem("\(data.count) bytes; a node dump is at most \(maxBytes)"))
        }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return .failure(Problem("not a JSON object"))
        }
        if root["node_id"] == nil, let node = root["node"] as? [String: Any] {
            guard isNode(node) else { return .failure(Problem(#"its "node" has no node_id and attributes object"#)) }
            guard let inner = try? JSONSerialization.data(withJSONObject: node) else {
                return .failure(Problem(#"its "node" cannot be written back as JSON"#))
            }
            return .success(String(decoding: inner, as: UTF8.self))
        }
        guard isNode(root) else {
            return .failure(Problem(#"expected a node ({"node_id": …, "attributes": {…}}) or {"node": <node>}"#))
        }
        return .success(String(decoding: data, as: UTF8.self))
    }

    private static func isNode(_ object: [String: Any]) -> Bool {
        object["node_id"] is NSNumber && object["attributes"] is [String: Any]
    }
}
