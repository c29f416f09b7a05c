import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// The catalog is generated from ../shared/reference; these tests check it still says the same.
/// They are skipped (and say so) when ../shared is not beside the repository.
@Suite("Catalog against ../shared/reference", .enabled(if: Paths.shared != nil, "../shared/reference is not present"))
struct ReferenceConsistencyTests {
    func reference(_ name: String) throws -> JSON {
        let path = try #require(Paths.shared) + "/reference/" + name
        let bytes = try #require(FileManager.default.contents(atPath: path))
        return try JSONDocument.parse([UInt8](bytes), maxDepth: 128).root
    }

    /// The `key` entries of the project's facts files of Matter 1.5 (cameras, closures).
    static func facts(_ key: String) throws -> [JSON] {
        try ["matter-1.5-cameras.json", "matter-1.5-closures.json"].flatMap { name in
            let bytes = try #require(FileManager.default.contents(atPath: Paths.repository + "/scripts/" + name))
            return try JSONDocument.parse([UInt8](bytes), maxDepth: 128).root[key]?.elements ?? []
        }
    }

    static func hex(_ text: String?) -> UInt32? {
        guard let text, text.hasPrefix("0x") else { return nil }
        return UInt32(text.dropFirst(2), radix: 16)
    }

    @Test("every Matter device type id, name and Home APIs id matches the reference")
    func deviceTypeIDs() throws {
        let catalog = try CatalogLoader.load(mappingsDirectory: Paths.mappings)
        let types = try reference("matter-device-types.json")["device_types"]?.elements ?? []
        var byID: [UInt32: JSON] = [:]
        for type in types { if let id = Self.hex(type["id"]?.string) { byID[id] = type } }
        // A type the reference has by id and name only takes its clusters from the project's facts.
        var factClusters: [UInt32: JSON] = [:]
        for type in try Self.facts("device_types") {
            guard let id = Self.hex(type["id"]?.string), byID[id]?["server_clusters"] == nil else { continue }
            #expect(byID[id]?["name"]?.string == type["name"]?.string, "the facts' \(type["name"]?.string ?? "?")")
            factClusters[id] = type["server_clusters"]
        }
        let matterTypes = catalog.deviceTypes.values.filter { $0.id.namespace == .matter }
        #expect(matterTypes.count >= 30)
        for type in matterTypes {
            let matterID = try #require(type.matterID, "\(type.id)")
            let entry = try #require(
                byID[matterID], "\(type.id) 0x\(String(matterID, radix: 16)) is not in the reference")
            #expect(entry["name"]?.string == type.displayName, "\(type.id)")
            #expect(entry["google_home_type_id"]?.string == type.homeAPIsID, "\(type.id)")
            let infrastructure: Set<UInt32> = [0x0004, 0x0062, 0x001D, 0x001E]
            let clusters = entry["server_clusters"] ?? factClusters[matterID]
            let mandatory = (clusters?["required"]?.elements ?? []).compactMap {
                Self.hex($0["id"]?.string)
            }
            .filter { !infrastructure.contains($0) }
            let required = type.requiredTraits.compactMap { catalog.trait($0)?.clusterID }
            #expect(Set(required) == Set(mandatory), "\(type.id): mandatory clusters differ from the reference")
        }
    }

    @Test("every Matter trait's cluster id, Home APIs id and attribute ids match the reference")
    func traitIDs() throws {
        let catalog = try CatalogLoader.load(mappingsDirectory: Paths.mappings)
        // Matter 1.5's camera and closure clusters come from the project's own facts files (the
        // reference has 1.4.2's).
        let clusters =
            (try reference("matter-clusters.json")["clusters"]?.elements ?? []) + (try Self.facts("clusters"))
        var byID: [UInt32: JSON] = [:]
        var byName: [String: JSON] = [:]
        for cluster in clusters {
            if let name = cluster["name"]?.string { byName[name] = cluster }
            for alias in cluster["cluster_ids"]?.elements ?? [] {
                if let id = Self.hex(alias["id"]?.string) { byID[id] = cluster }
            }
        }
        for trait in catalog.traits.values where trait.id.namespace == .matter {
            let clusterID = try #require(trait.clusterID, "\(trait.id)")
            let cluster = try #require(byID[clusterID], "\(trait.id) is not in the reference")
            let suffix = String(format: "%04x", clusterID)
            #expect(trait.homeAPIsID == "home.matter.0000.clusters.\(suffix)", "\(trait.id)")
            var attributeIDs: [String: UInt32] = [:]
            let base = cluster["classification"]?["baseCluster"]?.string.flatMap { byName[$0] }
            for source in [base, cluster].compactMap({ $0 }) {
                for attribute in source["attributes"]?.elements ?? [] {
                    if let name = attribute["name"]?.string, let id = Self.hex(attribute["id"]?.string) {
                        attributeIDs[name] = id
                    }
                }
            }
            for attribute in trait.attributes {
                let match = attributeIDs.first {
                    $0.key.prefix(1).lowercased() + $0.key.dropFirst() == attribute.name
                        || $0.key.lowercased() == attribute.name.lowercased()
                }
                #expect(match?.value == attribute.id, "\(trait.id).\(attribute.name)")
            }
        }
    }
}

/// Every payload of ../shared/corpus goes through TraitBridgeJSON and agrees with Foundation's parser.
@Suite("JSON against the real-payload corpus", .enabled(if: Paths.shared != nil, "../shared/corpus is not present"))
struct CorpusJSONTests {
    static func corpusFiles() -> [String] {
        guard let shared = Paths.shared else { return [] }
        let root = shared + "/corpus"
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".json") || $0.hasSuffix(".txt") }.sorted().map { root + "/" + $0 }
    }

    /// Equal JSON values, where an integer and a double of the same value are equal.
    static func sameValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.int(let x), .double(let y)), (.double(let y), .int(let x)): return Double(x) == y
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { sameValue($0, $1) }
        case (.object(let x), .object(let y)):
            return x.keys == y.keys && zip(x.members, y.members).allSatisfy { sameValue($0.value, $1.value) }
        default: return a == b
        }
    }

    @Test("every corpus file parses (the published-broken sample fails with its line and column)")
    func files() throws {
        let files = Self.corpusFiles()
        #expect(files.count >= 100)
        for file in files {
            let bytes = try #require(FileManager.default.contents(atPath: file))
            if file.hasSuffix(".MALFORMED.txt") {
                #expect(throws: JSONParseError.self, "\(file)") {
                    try JSONDocument.parse([UInt8](bytes), maxDepth: 128)
                }
            } else {
                let value = try JSONDocument.parse([UInt8](bytes), maxDepth: 128).root.value
                // 394.0 is written 394 (JSONValue's rule for whole numbers): compare numbers by value.
                #expect(
                    Self.sameValue(try JSONDocument.parse(value.serializedBytes(), maxDepth: 128).root.value, value),
                    "\(file)")
            }
        }
    }

    @Test("every MQTT payload in the corpus is accepted or refused exactly as Foundation's parser does")
    func payloads() throws {
        var checked = 0
        for file in Self.corpusFiles() where !file.hasSuffix(".txt") {
            let bytes = try #require(FileManager.default.contents(atPath: file))
            let root = try JSONDocument.parse([UInt8](bytes), maxDepth: 128).root
            let messages = root.kind == .array ? root.elements : [root]
            for message in messages {
                guard let payload = message["payload"]?.string else { continue }
                let ours = (try? JSONDocument.parse(payload)) != nil
                let foundation =
                    (try? JSONSerialization.jsonObject(with: Data(payload.utf8), options: [.fragmentsAllowed])) != nil
                #expect(ours == foundation, "\(file): \(payload.prefix(120))")
                checked += 1
            }
        }
        #expect(checked > 500)
    }
}
