import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeModel

/// Shared decoding of source tables: trait/attribute references checked against the catalog,
/// and transforms.
struct SourceTableReader {
    let reader: MappingReader
    let catalog: Catalog

    /// Reads `<mappings>/<relativePath>` and decodes it with `decode`; every problem (unreadable,
    /// not JSON, or what `decode` reported) comes back with file:line:col.
    static func load<Table>(
        _ relativePath: String, mappingsDirectory: String, catalog: Catalog, decode: (JSON, SourceTableReader) -> Table?
    ) throws(MappingError) -> Table {
        let path = mappingsDirectory + "/" + relativePath
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MappingError(problems: [
                MappingProblem(
                    file: path, location: .init(line: 1, column: 1), path: .root, message: "cannot read the file")
            ])
        }
        return try Self.decode(file: path, bytes: [UInt8](data), catalog: catalog, decode: decode)
    }

    /// Decodes a table file given as bytes (`file` names it in problems).
    static func decode<Table>(
        file: String, bytes: [UInt8], catalog: Catalog, decode: (JSON, SourceTableReader) -> Table?
    ) throws(MappingError) -> Table {
        let reader = MappingReader(file: file, bytes: bytes)
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(bytes)
        } catch {
            throw MappingError(problems: [
                MappingProblem(
                    file: file, location: .init(line: error.line, column: error.column), path: .root,
                    message: "invalid JSON: \(error.reason)")
            ])
        }
        let table = decode(document.root, SourceTableReader(reader: reader, catalog: catalog))
        guard reader.problems.isEmpty, let table else { throw MappingError(problems: reader.problems) }
        return table
    }

    /// The catalog's device types a table row lists under `deviceTypes` (each other one a problem).
    func deviceTypes(_ object: JSON, at path: JSONPath) -> Set<DeviceTypeID> {
        var found: Set<DeviceTypeID> = []
        for (index, element) in reader.array(object, "deviceTypes", at: path).enumerated() {
            guard let text = element.string, let id = DeviceTypeID(parsing: text), catalog.deviceType(id) != nil else {
                reader.problem(
                    path.appending("deviceTypes").appending(index),
                    "unknown device type \(element.string ?? "(not a string)"); use one of mappings/catalog")
                continue
            }
            found.insert(id)
        }
        return found
    }

    /// A trait id that the catalog defines.
    func trait(_ object: JSON, _ key: String = "trait", at path: JSONPath) -> TraitID? {
        guard let text = reader.string(object, key, at: path, required: true) else { return nil }
        guard let id = TraitID(parsing: text), catalog.trait(id) != nil else {
            reader.problem(path.appending(key), "unknown trait '\(text)'; use a trait of mappings/catalog")
            return nil
        }
        return id
    }

    func deviceType(_ object: JSON, _ key: String, at path: JSONPath) -> DeviceTypeID? {
        guard let text = reader.string(object, key, at: path, required: true) else { return nil }
        guard let id = DeviceTypeID(parsing: text), catalog.deviceType(id) != nil else {
            reader.problem(path.appending(key), "unknown device type '\(text)'; use a device type of mappings/catalog")
            return nil
        }
        return id
    }

    /// An attribute name that `trait` has.
    func attribute(_ object: JSON, of trait: TraitID, at path: JSONPath) -> String? {
        guard let name = reader.string(object, "attribute", at: path, required: true) else { return nil }
        guard catalog.trait(trait)?.attribute(named: name) != nil else {
            let known = catalog.trait(trait)?.attributes.map(\.name).joined(separator: ", ") ?? ""
            reader.problem(path.appending("attribute"), "trait \(trait) has no attribute '\(name)'; it has: \(known)")
            return nil
        }
        return name
    }

    /// `"transform": [ {"scale": 100}, "levelFrom254", {"map": [[a, b], …]} ]`.
    /// `key` names the member that holds the steps (`transform`, or a unit of measurement).
    func pipeline(_ object: JSON, key member: String = "transform", at path: JSONPath) -> ValuePipeline {
        var steps: [ValueTransform] = []
        for (index, element) in reader.array(object, member, at: path).enumerated() {
            let stepPath = path.appending(member).appending(index)
            if let name = element.string {
                switch name {
                case "levelFrom254": steps.append(.levelFrom254)
                case "invertPercentTo100ths": steps.append(.invertPercentTo100ths)
                case "kelvinToMireds": steps.append(.kelvinToMireds)
                case "luxToMatter": steps.append(.luxToMatter)
                case "fahrenheitToCelsius": steps.append(.fahrenheitToCelsius)
                default:
                    reader.problem(
                        stepPath,
                        "unknown transform '\(name)'; use levelFrom254, invertPercentTo100ths, kelvinToMireds, "
                            + "luxToMatter, fahrenheitToCelsius, {\"scale\": n}, {\"offset\": n} or "
                            + "{\"map\": [[source, model], …]}"
                    )
                }
                continue
            }
            guard element.kind == .object, element.count == 1, let (key, value) = element.members.first else {
                reader.problem(stepPath, "a transform is a name or an object with one key (scale, offset, map)")
                continue
            }
            switch key {
            case "scale", "offset":
                guard let number = value.double, number.isFinite, key == "offset" || number != 0 else {
                    reader.problem(stepPath.appending(key), "expected a non-zero number")
                    continue
                }
                steps.append(key == "scale" ? .scale(number) : .offset(number))
            case "map":
                var pairs: [ValueTransform.ValuePair] = []
                for (pairIndex, pair) in value.elements.enumerated() {
                    guard pair.kind == .array, pair.count == 2, let source = pair[0], let model = pair[1] else {
                        reader.problem(
                            stepPath.appending(key).appending(pairIndex), "expected a pair [source value, model value]")
                        continue
                    }
                    pairs.append(.init(source: AttributeValue(json: source), model: AttributeValue(json: model)))
                }
                if value.kind != .array || pairs.isEmpty {
                    reader.problem(
                        stepPath.appending(key), "expected a non-empty array of [source value, model value] pairs")
                }
                steps.append(.map(pairs))
            default:
                reader.problem(stepPath.appending(key), "unknown transform '\(key)'; use scale, offset or map")
            }
        }
        return ValuePipeline(steps)
    }
}
