import ArgumentParser
import Foundation
import TraitBridgeEmbedded
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

/// The read commands' words for values (`22.2 °C`, `locked`): the presentation table embedded in
/// the binary, and the metadata each device's description payload gives of its attributes.
enum PeoplesWords {
    /// The embedded table (checked against the catalog by the tests and `mappings validate`); an
    /// empty one, which shows values as they are, if the binary's copy could not be read.
    static let presenter: ValuePresenter = {
        guard let bytes = EmbeddedMappings.file(PresentationTable.relativePath) else {
            return ValuePresenter(table: PresentationTable())
        }
        do throws(MappingError) {
            let table = try PresentationTable.decode(
                file: "embedded:mappings/" + PresentationTable.relativePath, bytes: [UInt8](bytes), catalog: nil)
            return ValuePresenter(table: table)
        } catch {
            printError("warning: the embedded presentation table is unreadable, values are shown as sent: \(error)")
            return ValuePresenter(table: PresentationTable())
        }
    }()

    /// The table `serve` shows values with: the embedded one, or the user's mappings folder's over
    /// it, checked against the bridge's catalog; a problem stops `serve` with its place.
    static func servedPresenter(overlay: String?, catalog: Catalog) throws -> ValuePresenter {
        let folder: MappingsFolder
        do { folder = try MappingsFolder(overlay: overlay) } catch { throw ValidationError(error.description) }
        do {
            return ValuePresenter(table: try PresentationTable.load(mappingsDirectory: folder.path, catalog: catalog))
        } catch {
            throw ValidationError(folder.explain(error.description))
        }
    }

    /// The embedded catalog, for what descriptions do not carry (a command's fields); `nil`, with a
    /// warning, if it cannot be read.
    static func catalog() -> Catalog? {
        do {
            let folder = try MappingsFolder(overlay: nil)
            return try CatalogLoader.load(mappingsDirectory: folder.path)
        } catch {
            printError("warning: the embedded catalog is unreadable, commands are shown without their fields: \(error)")
            return nil
        }
    }

    /// The metadata a description gives of `attribute` of `trait` under device type `type`.
    static func metadata(_ description: JSON?, type: String, trait: String, attribute: String) -> AttributeMetadata? {
        let path = JSONPath(components: [
            .key("types"), .key(type), .key("traits"), .key(trait), .key("attributes"), .key(attribute),
        ])
        return description?[path: path].flatMap { AttributeMetadata(described: $0.value) }
    }

    /// The metadata a description gives of `attribute` of `trait` in the first device type that has it.
    static func metadata(_ description: JSON?, trait: String, attribute: String) -> AttributeMetadata? {
        for (type, _) in description?["types"]?.members ?? [] {
            if let found = metadata(description, type: type, trait: trait, attribute: attribute) { return found }
        }
        return nil
    }

    /// `value` of `trait.attribute` as a person reads it.
    static func text(_ value: JSONValue, trait: String, attribute: String, metadata: AttributeMetadata?) -> String {
        presenter.text(
            AttributeValue(jsonValue: value), of: ValuePresenter.key(trait: trait, attribute: attribute),
            metadata: metadata)
    }

    /// The values a person looks for first on this device, in their words (``ValuePresenter/headline``).
    static func headline(state: JSON, description: JSON?) -> String {
        presenter.headline(state: state.value, description: description?.value)
    }
}
