public import FoundationEssentials
public import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// The JSON of the MQTT contract (ARCHITECTURE §5) for one device: `…/devices/<id>/state` and
/// the retained description `…/devices/<id>`. Keys come in a fixed order, so equal states give
/// equal bytes and "publish only on change" is a byte comparison.
public enum DevicePayloads {
    /// `id`, `name`, `connectivityState`, `dataSourceLocality`, `lastUpdate`, then per device type
    /// (in device order) its aggregate and per trait its connectivity, reason, since and values.
    public static func state(of device: Device, lastUpdate: Date?) -> [UInt8] {
        var writer = JSONStreamWriter(capacity: 256 + 256 * device.deviceTypes.count)
        writer.beginObject()
        writer.member("id", device.id.rawValue)
        writer.member("name", device.name)
        let connectivity = device.sourceConnectivity
        writer.member("connectivityState", connectivity.connectivityState.rawValue)
        writer.member("dataSourceLocality", connectivity.dataSourceLocality.rawValue)
        if let lastUpdate { writer.member("lastUpdate", timestamp(lastUpdate)) }
        writer.key("types")
        writer.beginObject()
        // The traits of one source share their reason and since: format each once per payload.
        var lastReason: (ConnectivityReason, String, String)?
        var lastSince: (Date, String)?
        for type in device.deviceTypes {
            writer.key(type.key)
            writer.beginObject()
            writer.member("type", type.typeID.description)
            writer.key("isPrimaryType")
            writer.bool(type.isPrimaryType)
            let typeConnectivity = type.sourceConnectivity
            writer.member("connectivityState", typeConnectivity.connectivityState.rawValue)
            writer.member("dataSourceLocality", typeConnectivity.dataSourceLocality.rawValue)
            writer.key("traits")
            writer.beginObject()
            for trait in type.traits {
                writer.key(trait.traitID.description)
                writer.beginObject()
                writer.member("connectivityState", trait.connectivity.state.rawValue)
                writer.member("dataSourceLocality", trait.connectivity.locality.rawValue)
                if let reason = trait.connectivity.reason {
                    if lastReason?.0 != reason { lastReason = (reason, reason.description, reason.code) }
                    writer.member("reason", lastReason!.1)
                    writer.member("reasonCode", lastReason!.2)
                }
                if let since = trait.connectivity.since {
                    if lastSince?.0 != since { lastSince = (since, timestamp(since)) }
                    writer.member("since", lastSince!.1)
                }
                writer.key("attributes")
                writer.beginObject()
                for name in trait.attributes.keys.sorted() {
                    guard let value = trait.attributes[name] else { continue }
                    writer.key(name)
                    writer.value(value.jsonValue)
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
    /// device really feeds, with their metadata, and the commands it accepts.
    public static func description(
        of device: Device, homeName: String?, roomName: String?, catalog: Catalog,
        fedAttributes: (TraitAddress) -> [(name: String, metadata: AttributeMetadata)], commands: (TraitAddress) -> [String]
    ) -> JSONValue {
        var root = JSONObject()
        root["id"] = .string(device.id.rawValue)
        root["name"] = .string(device.name)
        root.setIfPresent("home", homeName.map { .string($0) })
        root.setIfPresent("room", roomName.map { .string($0) })
        var identity = JSONObject()
        identity.setIfPresent("vendorId", device.identity.vendorID.map { .int(Int64($0)) })
        identity.setIfPresent("productId", device.identity.productID.map { .int(Int64($0)) })
        identity.setIfPresent("uniqueId", device.identity.uniqueID.map { .string($0) })
        identity.setIfPresent("serialNumber", device.identity.serialNumber.map { .string($0) })
        identity["otherDeviceIds"] = .array(device.identity.otherDeviceIDs.map { other in
            var object = JSONObject()
            object.setIfPresent("agentId", other.agentID.map { .string($0) })
            object["deviceId"] = .string(other.deviceID)
            return .object(object)
        })
        root["identity"] = .object(identity)
        var info = JSONObject()
        info.setIfPresent("manufacturer", device.info.manufacturer.map { .string($0) })
        info.setIfPresent("model", device.info.model.map { .string($0) })
        info.setIfPresent("hwVersion", device.info.hardwareVersion.map { .string($0) })
        info.setIfPresent("swVersion", device.info.softwareVersion.map { .string($0) })
        root["deviceInfo"] = .object(info)
        root["isMatterDevice"] = .bool(device.isMatterDevice)
        root["sources"] = .array(device.sources.map { .string($0.description) })
        var types = JSONObject()
        for type in device.deviceTypes {
            var typeObject = JSONObject()
            typeObject["type"] = .string(type.typeID.description)
            typeObject.setIfPresent("homeApisId", catalog.deviceType(type.typeID)?.homeAPIsID.map { .string($0) })
            typeObject["isPrimaryType"] = .bool(type.isPrimaryType)
            var traits = JSONObject()
            for trait in type.traits {
                let address = TraitAddress(deviceTypeKey: type.key, traitID: trait.traitID)
                var traitObject = JSONObject()
                traitObject.setIfPresent("homeApisId", catalog.trait(trait.traitID)?.homeAPIsID.map { .string($0) })
                traitObject.setIfPresent("source", trait.source.map { .string($0.description) })
                var attributes = JSONObject()
                for (name, metadata) in fedAttributes(address) { attributes[name] = metadataJSON(metadata) }
                traitObject["attributes"] = .object(attributes)
                traitObject["commands"] = .array(commands(address).map { .string($0) })
                traits[trait.traitID.description] = .object(traitObject)
            }
            typeObject["traits"] = .object(traits)
            types[type.key] = .object(typeObject)
        }
        root["types"] = .object(types)
        return .object(root)
    }

    public static func metadataJSON(_ metadata: AttributeMetadata) -> JSONValue {
        var object = JSONObject()
        object["format"] = .string(metadata.format.rawValue)
        object.setIfPresent("unit", metadata.unit.map { .string($0.rawValue) })
        object.setIfPresent("min", metadata.minimum.map { .double($0) })
        object.setIfPresent("max", metadata.maximum.map { .double($0) })
        object.setIfPresent("step", metadata.step.map { .double($0) })
        object.setIfPresent("validValues", metadata.validValues.map { values in
            .array(values.map { value in
                var entry = JSONObject()
                entry["value"] = value.value.jsonValue
                entry.setIfPresent("label", value.label.map { .string($0) })
                return .object(entry)
            })
        })
        object.setIfPresent("maxLength", metadata.maxLength.map { .int(Int64($0)) })
        object["writable"] = .bool(metadata.isWritable)
        object["nullable"] = .bool(metadata.isNullable)
        return .object(object)
    }

    /// ISO 8601 in UTC with milliseconds: `2026-11-22T03:32:10.396Z`.
    public static func timestamp(_ date: Date) -> String {
        Timestamp.iso8601(date)
    }
}
