import Foundation
import TraitBridgeCloud
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeTesting

/// The catalog and C2C table of this repository, loaded once for all cloud tests.
enum CloudFixtures {
    static let paths = TestPaths(filePath: #filePath)

    static let c2c: GoogleC2C = {
        do {
            let catalog = try CatalogLoader.load(mappingsDirectory: paths.mappings)
            let table = try GoogleC2CTable.load(mappingsDirectory: paths.mappings, catalog: catalog)
            return GoogleC2C(catalog: catalog, table: table)
        } catch {
            fatalError("the repository's mappings must load: \(error)")
        }
    }()

    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A corpus file's bytes, or `nil` when ../shared is absent.
    static func corpus(_ relative: String) -> [UInt8]? {
        guard let corpus = paths.corpus else { return nil }
        return FileManager.default.contents(atPath: corpus + "/" + relative).map { [UInt8]($0) }
    }
}
