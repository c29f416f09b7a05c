public import TraitBridgeModel
public import TraitBridgeJSON
import FoundationEssentials

/// Devices described by the user in `mappings/generic/*.json`: topics, JSON paths, transforms,
/// command templates and availability, served with no recompiling (issue "generic topics").
///
/// A device may name `mergeWith`, the id of a device another source provides (a configured
/// alias): its traits then join that device, each keeping its own source and connectivity.
public struct GenericDeviceDefinition: Sendable {
    public var nativeID: String
    public var name: String
    /// The device id of another source's device to merge into, if any.
    public var mergeTarget: DeviceID?
    public var identity: DeviceIdentity
    public var locality: TraitLocality
    public var availability: Availability?
    /// Without an availability topic, silence longer than this makes the traits unknown (default 10 min).
    public var staleness: Duration
    public var deviceTypes: [DeviceTypeInstance]
    /// Keys of device types whose traits join the type of the same key and type on the
    /// `mergeTarget` device (`"join": true`: a camera's settings beside its live view).
    public var joinedTypes: Set<String> = []
    public var bindings: [Binding]
    /// Where it was defined (`file path`), for messages.
    public var origin: String

    /// An availability topic and the payloads that mean online and offline.
    public struct Availability: Sendable {
        public var topic: String
        public var online: String
        public var offline: String
    }

    /// One attribute fed from a topic (a JSON path in its payload, or the whole plain payload).
    public struct Binding: Sendable {
        public var address: TraitAddress
        public var attribute: String
        public var stateTopic: String
        public var jsonPath: JSONPath?
        public var pipeline: ValuePipeline
        public var metadata: AttributeMetadata
        public var commandTopic: String?
        /// `{{value}}` is replaced by the source value (JSON text for JSON payloads, plain otherwise).
        public var commandTemplate: String?

        /// The command payload for a source value: the template with `{{value}}` replaced by the
        /// value's text — JSON text (a string with its quotes) when the state is JSON, else plain.
        public func commandPayload(_ value: AttributeValue) -> String {
            let text: String
            switch value {
            case .string(let string): text = jsonPath == nil ? string : JSONValue.string(string).serialized()
            default: text = value.jsonValue.serialized()
            }
            return (commandTemplate ?? "{{value}}").split(separator: "{{value}}", omittingEmptySubsequences: false)
                .joined(separator: text)
        }
    }
}

/// Loads `<mappings>/generic/*.json`; a missing folder means no generic devices.
public enum GenericDevicesLoader {
    public static func load(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> [GenericDeviceDefinition] {
        let folder = mappingsDirectory + "/generic"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var devices: [GenericDeviceDefinition] = []
        var problems: [MappingProblem] = []
        for name in names.filter({ $0.hasSuffix(".json") }).sorted() {
            let path = folder + "/" + name
            guard let data = FileManager.default.contents(atPath: path) else {
                problems.append(MappingProblem(file: path, location: .init(line: 1, column: 1), path: .root, message: "cannot read the file"))
                continue
            }
            do throws(MappingError) {
                devices += try decode(file: path, bytes: [UInt8](data), catalog: catalog)
            } catch {
                problems += error.problems
            }
        }
        guard problems.isEmpty else { throw MappingError(problems: problems) }
        return devices
    }

    /// The devices of one generic file given as bytes (`file` names it in problems).
    public static func decode(file: String, bytes: [UInt8], catalog: Catalog) throws(MappingError) -> [GenericDeviceDefinition] {
        let reader = MappingReader(file: file, bytes: bytes)
        let root: JSON
        do {
            root = try JSONDocument.parse(bytes).root
        } catch {
            throw MappingError(problems: [
                MappingProblem(file: file, location: .init(line: error.line, column: error.column), path: .root, message: "invalid JSON: \(error.reason)"),
            ])
        }
        let devices = GenericDeviceDecoder(tables: SourceTableReader(reader: reader, catalog: catalog), origin: file).decode(root)
        guard reader.problems.isEmpty else { throw MappingError(problems: reader.problems) }
        return devices
    }
}
