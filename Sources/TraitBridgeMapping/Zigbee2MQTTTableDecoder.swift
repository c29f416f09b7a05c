import TraitBridgeJSON
import TraitBridgeModel

/// Decodes `mappings/sources/zigbee2mqtt.json`; problems go to the reader.
struct Zigbee2MQTTTableDecoder {
    let tables: SourceTableReader
    var reader: MappingReader { tables.reader }

    func decode(_ root: JSON) -> Zigbee2MQTTTable? {
        guard let root = reader.object(root, at: .root) else { return nil }
        reader.checkKeys(root, at: .root, allowed: ["staleness", "composites", "properties", "primaryOrder"])
        var table = Zigbee2MQTTTable()
        if let staleness = reader.object(root["staleness"], at: "staleness") {
            reader.checkKeys(staleness, at: "staleness", allowed: ["mainsSeconds", "batterySeconds"])
            if let mains = reader.nonNegativeInt(staleness, "mainsSeconds", at: "staleness") {
                table.mainsStaleness = .seconds(mains)
            }
            if let battery = reader.nonNegativeInt(staleness, "batterySeconds", at: "staleness") {
                table.batteryStaleness = .seconds(battery)
            }
        }
        if let composites = reader.object(root["composites"], at: "composites") {
            for (name, value) in composites.members {
                let path = JSONPath("composites").appending(name)
                guard let object = reader.object(value, at: path) else { continue }
                reader.checkKeys(object, at: path, allowed: ["deviceTypes", "features"])
                var rules: [(whenAny: [String], type: DeviceTypeID)] = []
                for (index, rule) in reader.array(object, "deviceTypes", at: path, required: true).enumerated() {
                    let rulePath = path.appending("deviceTypes").appending(index)
                    guard let rule = reader.object(rule, at: rulePath) else { continue }
                    reader.checkKeys(rule, at: rulePath, allowed: ["whenAny", "type"])
                    let when = reader.array(rule, "whenAny", at: rulePath).compactMap(\.string)
                    if let type = tables.deviceType(rule, "type", at: rulePath) { rules.append((when, type)) }
                }
                var features: [String: Zigbee2MQTTTable.Feature] = [:]
                if let featureObject = reader.object(object["features"], at: path.appending("features")) {
                    for (featureName, featureValue) in featureObject.members {
                        if let feature = decodeFeature(
                            featureValue, at: path.appending("features").appending(featureName))
                        {
                            features[featureName] = feature
                        }
                    }
                }
                table.composites[name] = .init(deviceTypes: rules, features: features)
            }
        }
        if let properties = reader.object(root["properties"], at: "properties") {
            for (name, value) in properties.members {
                let path = JSONPath("properties").appending(name)
                guard let object = reader.object(value, at: path) else { continue }
                if let type = tables.deviceType(object, "deviceType", at: path),
                    let feature = decodeFeature(object, at: path, extraKeys: ["deviceType"])
                {
                    table.properties[name] = .init(deviceType: type, feature: feature)
                }
            }
        }
        table.primaryOrder = reader.array(root, "primaryOrder", at: .root).compactMap(\.string)
        return table
    }

    private func decodeFeature(_ value: JSON, at path: JSONPath, extraKeys: Set<String> = []) -> Zigbee2MQTTTable
        .Feature?
    {
        guard let object = reader.object(value, at: path) else { return nil }
        reader.checkKeys(
            object, at: path,
            allowed: extraKeys.union([
                "trait", "attribute", "transform", "fields", "binaryFromExpose", "clampToExposeRange", "onlyProperties",
                "exposeUnit", "notifies",
            ]))
        guard let trait = tables.trait(object, at: path) else { return nil }
        var fields: [String: (attribute: String, pipeline: ValuePipeline)] = [:]
        var attribute: String?
        if let fieldObject = object["fields"] {
            guard let fieldObject = reader.object(fieldObject, at: path.appending("fields")) else { return nil }
            for (name, field) in fieldObject.members {
                let fieldPath = path.appending("fields").appending(name)
                guard let field = reader.object(field, at: fieldPath) else { continue }
                reader.checkKeys(field, at: fieldPath, allowed: ["attribute", "transform"])
                if let fieldAttribute = tables.attribute(field, of: trait, at: fieldPath) {
                    fields[name] = (fieldAttribute, tables.pipeline(field, at: fieldPath))
                }
            }
        } else {
            attribute = tables.attribute(object, of: trait, at: path)
            if attribute == nil { return nil }
        }
        return .init(
            trait: trait, attribute: attribute, pipeline: tables.pipeline(object, at: path), fields: fields,
            isBinaryFromExpose: reader.bool(object, "binaryFromExpose", at: path) ?? false,
            clampsToExposeRange: reader.bool(object, "clampToExposeRange", at: path) ?? false,
            onlyProperties: object["onlyProperties"].map { _ in
                reader.array(object, "onlyProperties", at: path).compactMap(\.string)
            },
            exposeUnit: reader.string(object, "exposeUnit", at: path),
            notifies: reader.bool(object, "notifies", at: path) ?? false)
    }
}
