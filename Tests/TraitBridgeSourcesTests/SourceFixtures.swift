import Foundation
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources
import TraitBridgeTesting

/// The repository's mappings and ../shared/corpus, found from this file.
enum SourceFixtures {
    static let repository = TestPaths(filePath: #filePath).repository
    static let corpus = TestPaths(filePath: #filePath).corpus

    private static let loaded: Result<(Catalog, Zigbee2MQTTSource), any Error> = Result {
        let catalog = try CatalogLoader.load(mappingsDirectory: repository + "/mappings")
        let table = try Zigbee2MQTTTable.load(mappingsDirectory: repository + "/mappings", catalog: catalog)
        return (catalog, Zigbee2MQTTSource(table: table, catalog: catalog))
    }

    /// The shipped catalog (a test fails with the mapping problems when it does not load).
    static func catalog() throws -> Catalog { try loaded.get().0 }
    /// The zigbee2mqtt source with the shipped table.
    static func zigbee2mqtt() throws -> Zigbee2MQTTSource { try loaded.get().1 }

    /// A corpus file as JSON.
    static func corpusJSON(_ relativePath: String) throws -> JSON {
        guard let corpus else { throw CocoaError(.fileNoSuchFile) }
        let data = try Data(contentsOf: URL(fileURLWithPath: corpus + "/" + relativePath))
        return try JSONDocument.parse([UInt8](data), maxDepth: 128).root
    }

    /// The recorded MQTT messages of a corpus file: (topic, payload bytes, retained).
    static func corpusMessages(_ relativePath: String) throws -> [(topic: String, payload: [UInt8], retained: Bool)] {
        let root = try corpusJSON(relativePath)
        let messages = root.kind == .array ? root.elements : [root]
        return messages.compactMap { message in
            guard let topic = message["topic"]?.string else { return nil }
            return (topic, Array((message["payload"]?.string ?? "").utf8), message["retained"]?.bool ?? false)
        }
    }
}
