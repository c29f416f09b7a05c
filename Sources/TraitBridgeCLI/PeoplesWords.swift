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
        guard let file = EmbeddedMappings.files.first(where: { $0.path == PresentationTable.relativePath }) else {
            return ValuePresenter(table: PresentationTable())
        }
        do throws(MappingError) {
            let table = try PresentationTable.decode(
                file: "embedded:mappings/" + file.path, bytes: [UInt8](file.bytes), catalog: nil)
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

    /// `value` of `trait.attribute` as a person reads it.
    static func text(_ value: JSONValue, trait: String, attribute: String, metadata: AttributeMetadata?) -> String {
        presenter.text(
            AttributeValue(jsonValue: value), of: ValuePresenter.key(trait: trait, attribute: attribute),
            metadata: metadata)
    }

    /// The values a person looks for first on this device (the presentation table's card), named
    /// where a number alone would not say what it is (a percentage, a unit already in the line):
    /// "on, brightness 78 %, 4000 K", "18.7 °C, heating to 19.5 °C, heat", "locked, battery 81 %".
    static func headline(state: JSON, description: JSON?) -> String {
        let types = state["types"]?.members ?? []
        let keys = presenter.cardKeys(deviceTypes: types.compactMap { $0.value["type"]?.string })
        var shown: [String] = []
        var units: Set<String> = []
        for key in keys {
            guard let dot = key.lastIndex(of: ".") else { continue }
            let trait = String(key[..<dot])
            let attribute = String(key[key.index(after: dot)...])
            for (typeKey, type) in types {
                guard let value = type["traits"]?[trait]?["attributes"]?[attribute] else { continue }
                let metadata = metadata(description, type: typeKey, trait: trait, attribute: attribute)
                var text = text(value.value, trait: trait, attribute: attribute, metadata: metadata)
                if value.value.isNumber, let unit = presenter.unit(of: key, metadata: metadata)?.symbol {
                    if unit == "%" || units.contains(unit) { text = presenter.name(of: key).lowercased() + " " + text }
                    units.insert(unit)
                }
                shown.append(text)
                break
            }
        }
        return shown.joined(separator: ", ")
    }
}

extension JSONValue {
    fileprivate var isNumber: Bool {
        switch self {
        case .int, .double: true
        default: false
        }
    }
}
