public import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// The JSON of the MQTT contract (ARCHITECTURE §5) for one device: `…/devices/<id>/state` and
/// the retained description `…/devices/<id>`. Keys come in a fixed order, so equal states give
/// equal bytes and "publish only on change" compares their hashes.
public enum DevicePayloads {
    /// `id`, `name`, `connectivityState`, `dataSourceLocality`, `lastUpdate`, then per device type
    /// (in device order) its aggregate and per trait its connectivity, reason, since and values.
    public static func state(of device: Device, lastUpdate: Date?) -> [UInt8] {
        var writer = JSONStreamWriter(capacity: 256 + 256 * device.deviceTypes.count)
        writer.beginObject()
        writer.member(literal: "id", device.id.rawValue)
        writer.member(literal: "name", device.name)
        let connectivity = device.sourceConnectivity
        writer.key(literal: "connectivityState")
        writer.string(literal: connectivity.connectivityState.word)
        writer.key(literal: "dataSourceLocality")
        writer.string(literal: connectivity.dataSourceLocality.word)
        if let lastUpdate {
            writer.key(literal: "lastUpdate")
            writer.timestamp(lastUpdate)
        }
        writer.key(literal: "types")
        writer.beginObject()
        // The traits of one source share their reason: format it once per payload.
        var lastReason: (ConnectivityReason, String, String)?
        for type in device.deviceTypes {
            writer.key(type.key)
            writer.beginObject()
            writer.key(literal: "type")
            writer.string(type.typeID.namespace.description, dot: type.typeID.name)
            writer.key(literal: "isPrimaryType")
            writer.bool(type.isPrimaryType)
            let typeConnectivity = type.sourceConnectivity
            writer.key(literal: "connectivityState")
            writer.string(literal: typeConnectivity.connectivityState.word)
            writer.key(literal: "dataSourceLocality")
            writer.string(literal: typeConnectivity.dataSourceLocality.word)
            writer.key(literal: "traits")
            writer.beginObject()
            for trait in type.traits {
                writer.key(trait.traitID.namespace.description, dot: trait.traitID.name)
                writer.beginObject()
                writer.key(literal: "connectivityState")
                writer.string(literal: trait.connectivity.state.connectivityState.word)
                writer.key(literal: "dataSourceLocality")
                writer.string(literal: trait.connectivity.locality.dataSourceLocality.word)
                if let reason = trait.connectivity.reason {
                    if lastReason?.0 != reason { lastReason = (reason, reason.description, reason.code) }
                    writer.member(literal: "reason", lastReason!.1)
                    writer.member(literal: "reasonCode", lastReason!.2)
                }
                if let since = trait.connectivity.since {
                    writer.key(literal: "since")
                    writer.timestamp(since)
                }
                writer.key(literal: "attributes")
                writer.beginObject()
                if trait.attributes.count == 1, let (name, value) = trait.attributes.first {
                    writer.key(name)  // most traits of a state have one value: nothing to sort
                    writer.value(value.jsonValue)
                } else {
                    for name in trait.attributes.keys.sorted() {
                        guard let value = trait.attributes[name] else { continue }
                        writer.key(name)
                        writer.value(value.jsonValue)
                    }
                }
                writer.endObject()
                writer.endObject()
            }
            writer.endObject()
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// The description: identity, place, sources, and per type and trait the attributes the
    /// device really feeds, with their metadata, and the commands it accepts. Written straight to
    /// bytes, with no JSON tree in between: it is made for every device a source describes.
    public static func descriptionBytes(
        of device: Device, homeName: String?, roomName: String?, zoneNames: [String] = [], catalog: Catalog,
        fedAttributes: (TraitAddress) -> [(name: String, metadata: AttributeMetadata)],
        commands: (TraitAddress) -> [String]
    ) -> [UInt8] {
        var writer = JSONStreamWriter(capacity: 512 + 512 * device.deviceTypes.count)
        writer.beginObject()
        writer.member("id", device.id.rawValue)
        writer.member("name", device.name)
        if let homeName { writer.member("home", homeName) }
        if let roomName { writer.member("room", roomName) }
        if !zoneNames.isEmpty {
            writer.key("zones")
            writer.beginArray()
            for zone in zoneNames { writer.string(zone) }
            writer.endArray()
        }
        writer.key("identity")
        writer.beginObject()
        if let vendorID = device.identity.vendorID {
            writer.key("vendorId")
            writer.int(Int64(vendorID))
        }
        if let productID = device.identity.productID {
            writer.key("productId")
            writer.int(Int64(productID))
        }
        if let uniqueID = device.identity.uniqueID { writer.member("uniqueId", uniqueID) }
        if let serial = device.identity.serialNumber { writer.member("serialNumber", serial) }
        writer.key("otherDeviceIds")
        writer.beginArray()
        for other in device.identity.otherDeviceIDs {
            writer.beginObject()
            if let agentID = other.agentID { writer.member("agentId", agentID) }
            writer.member("deviceId", other.deviceID)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        writer.key("deviceInfo")
        writer.beginObject()
        if let manufacturer = device.info.manufacturer { writer.member("manufacturer", manufacturer) }
        if let model = device.info.model { writer.member("model", model) }
        if let version = device.info.hardwareVersion { writer.member("hwVersion", version) }
        if let version = device.info.softwareVersion { writer.member("swVersion", version) }
        writer.endObject()
        writer.key("isMatterDevice")
        writer.bool(device.isMatterDevice)
        writer.key("sources")
        writer.beginArray()
        for source in device.sources { writer.string(source.description) }
        writer.endArray()
        writer.key("types")
        writer.beginObject()
        for type in device.deviceTypes {
            writer.key(type.key)
            writer.beginObject()
            writer.member("type", type.typeID.description)
            if let homeAPIsID = catalog.deviceType(type.typeID)?.homeAPIsID { writer.member("homeApisId", homeAPIsID) }
            writer.key("isPrimaryType")
            writer.bool(type.isPrimaryType)
            writer.key("traits")
            writer.beginObject()
            for trait in type.traits {
                let address = TraitAddress(deviceTypeKey: type.key, traitID: trait.traitID)
                writer.key(trait.traitID.namespace.description, dot: trait.traitID.name)
                writer.beginObject()
                if let homeAPIsID = catalog.trait(trait.traitID)?.homeAPIsID { writer.member("homeApisId", homeAPIsID) }
                if let source = trait.source { writer.member("source", source.description) }
                writer.key("attributes")
                writeAttributes(fedAttributes(address), to: &writer)
                writer.key("commands")
                writer.beginArray()
                for command in commands(address) { writer.string(command) }
                writer.endArray()
                writer.endObject()
            }
            writer.endObject()
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// A trait's fed attributes as the description writes them (`{"onOff":{"format":"bool",…}}`),
    /// for the registry's record.
    public static func attributesText(_ attributes: [(name: String, metadata: AttributeMetadata)]) -> String {
        guard !attributes.isEmpty else { return "{}" }
        var writer = JSONStreamWriter(capacity: 96 * attributes.count)
        writeAttributes(attributes, to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private static func writeAttributes(
        _ attributes: [(name: String, metadata: AttributeMetadata)], to writer: inout JSONStreamWriter
    ) {
        writer.beginObject()
        for (name, metadata) in attributes {
            writer.key(name)
            writeMetadata(metadata, to: &writer)
        }
        writer.endObject()
    }

    private static func writeMetadata(_ metadata: AttributeMetadata, to writer: inout JSONStreamWriter) {
        writer.beginObject()
        writer.member("format", metadata.format.rawValue)
        if let unit = metadata.unit { writer.member("unit", unit.rawValue) }
        if let minimum = metadata.minimum {
            writer.key("min")
            writer.value(.double(minimum))
        }
        if let maximum = metadata.maximum {
            writer.key("max")
            writer.value(.double(maximum))
        }
        if let step = metadata.step {
            writer.key("step")
            writer.value(.double(step))
        }
        if let values = metadata.validValues {
            writer.key("validValues")
            writer.beginArray()
            for value in values {
                writer.beginObject()
                writer.key("value")
                writer.value(value.value.jsonValue)
                if let label = value.label { writer.member("label", label) }
                writer.endObject()
            }
            writer.endArray()
        }
        if let maxLength = metadata.maxLength {
            writer.key("maxLength")
            writer.int(Int64(maxLength))
        }
        writer.key("writable")
        writer.bool(metadata.isWritable)
        writer.key("nullable")
        writer.bool(metadata.isNullable)
        writer.endObject()
    }

    /// What ``writeMetadata(_:to:)`` wrote, read back: a restored device describes its attributes as
    /// it did before the restart. `nil` when the text is not of that shape.
    static func readMetadata(_ json: JSON) -> AttributeMetadata? {
        guard json.kind == .object, let format = json["format"]?.string.flatMap(AttributeFormat.init(rawValue:))
        else { return nil }
        let unitText = json["unit"]?.string
        let unit = unitText.flatMap(AttributeUnit.init(rawValue:))
        guard unitText == nil || unit != nil else { return nil }
        return AttributeMetadata(
            format: format, unit: unit, minimum: json["min"]?.double, maximum: json["max"]?.double,
            step: json["step"]?.double,
            validValues: json["validValues"].map { list in
                list.elements.compactMap { entry in
                    entry["value"].map { ValidValue(AttributeValue(json: $0), label: entry["label"]?.string) }
                }
            },
            maxLength: json["maxLength"]?.int64.flatMap { Int(exactly: $0) },
            isWritable: json["writable"]?.bool ?? false, isNullable: json["nullable"]?.bool ?? false)
    }

    /// ISO 8601 in UTC with milliseconds: `2026-11-22T03:32:10.396Z`.
    public static func timestamp(_ date: Date) -> String {
        Timestamp.iso8601(date)
    }
}

/// The words of the contract's enums as literals, written without an escaping check. Each is its
/// case's raw value (`DevicePayloadsTests` checks every case).
extension ConnectivityState {
    var word: StaticString {
        switch self {
        case .online: "online"
        case .offline: "offline"
        case .partiallyOnline: "partiallyOnline"
        case .unknown: "unknown"
        }
    }
}

extension DataSourceLocality {
    var word: StaticString {
        switch self {
        case .direct: "direct"
        case .localPeer: "localPeer"
        case .remote: "remote"
        case .mixed: "mixed"
        case .unspecified: "unspecified"
        }
    }
}
