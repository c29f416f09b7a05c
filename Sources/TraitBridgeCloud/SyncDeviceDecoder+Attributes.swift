import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

extension SyncDeviceDecoder {
    /// SYNC attributes sorted to the declared trait each belongs to, each checked against that
    /// trait's metadata. Keys of no declared trait, and values of the wrong kind, are reported.
    struct SortedAttributes {
        var original = JSONObject()
        /// `Trait.attribute` for each accepted attribute (what the table's `when` tests).
        var present: Set<String> = []
        var byTrait: [String: [(name: String, value: AttributeValue)]] = [:]
    }

    mutating func sortAttributes(_ json: JSON?, traits: [String]) -> SortedAttributes {
        var sorted = SortedAttributes()
        guard let json else { return sorted }
        guard json.kind == .object else {
            problem("attributes", "expected an object, found \(json.kind) (dropped)")
            return sorted
        }
        for (key, member) in json.members {
            let owners = c2c.syncAttributeOwners[key] ?? []
            guard let owner = traits.first(where: owners.contains), let trait = c2c.googleTrait(owner) else {
                let declared = traits.isEmpty ? "none" : traits.joined(separator: ", ")
                problem(attribute: key, "belongs to no declared trait (declared: \(declared)); dropped")
                continue
            }
            let original = member.value
            var value = AttributeValue(jsonValue: original)
            if key == "availableThermostatModes", case .string(let text) = value {
                // Google documents both forms: an array, or a comma-separated string.
                value = .list(text.split(separator: ",").map { .string(String($0).trimmingSpaces) })
            }
            if case .structure = value, c2c.catalog.trait(trait)?.attribute(named: key)?.metadata.format == .list {
                // Seen in the wild (openHAB's sensorStatesSupported): one object where a list is due.
                problem(attribute: key, "a single object where a list is expected; read as a list of one")
                value = .list([value])
            }
            do {
                try c2c.catalog.attributeMetadata(trait, key).validate(value)
            } catch {
                problem(attribute: key, "\(error) (dropped)")
                continue
            }
            sorted.original.append(key, original)
            sorted.present.insert(owner + "." + key)
            if owner == "SensorState", key == "sensorStatesSupported", case .list(let sensors) = value {
                for case .structure(let sensor) in sensors {
                    if case .string(let name)? = sensor["name"] { sorted.present.insert("SensorState:\(name)") }
                }
            }
            sorted.byTrait[owner, default: []].append((key, value))
        }
        return sorted
    }

    /// The first candidate of the table whose conditions hold and whose required traits the
    /// device provides (or the table always adds); `nil` means the generated google type.
    func chooseDeviceType(_ shortType: String, traits: Set<String>, attributes: Set<String>) -> DeviceTypeID? {
        for candidate in c2c.table.types[shortType] ?? [] {
            let holds = candidate.when.allSatisfy { condition in
                condition.utf8.contains { $0 == 0x2E || $0 == 0x3A }  // `Trait.attribute` or `SensorState:name`
                    ? attributes.contains(condition) : traits.contains(condition)
            }
            guard holds, let definition = c2c.catalog.deviceType(candidate.deviceType) else { continue }
            let sensors = c2c.table.sensors.filter { attributes.contains("SensorState:\($0.name)") }.map(\.trait)
            let provided = Set(traits.flatMap { c2c.table.traits[$0]?.map(\.trait) ?? [] }).union(c2c.table.alwaysAdded)
                .union(sensors)
            if definition.requiredTraits.allSatisfy(provided.contains) { return candidate.deviceType }
        }
        return nil
    }

    /// Puts the SYNC attributes on the device: kept as they are on google traits, converted by the
    /// table's `sync` rules on Matter traits.
    mutating func applyAttributes(
        _ byTrait: [String: [(name: String, value: AttributeValue)]],
        converted: [String: GoogleC2CTable.TraitRule],
        to device: inout Device,
        now: Date
    ) {
        for (short, attributes) in byTrait {
            if let rule = converted[short] {
                guard let address = try? device.resolve(rule.trait) else { continue }
                var values: [String: AttributeValue] = [:]
                for (name, value) in attributes { values[name] = value }
                for sync in rule.sync {
                    guard let raw = CloudValues.value(at: sync.c2cPath, in: .structure(values)) else { continue }
                    guard let model = sync.pipeline.forward(raw, fittingTo: sync.metadata) else {
                        problem(
                            attribute: sync.c2cPath.joined(separator: "."),
                            "cannot convert \(raw) to \(rule.trait).\(sync.attribute) (dropped)")
                        continue
                    }
                    report(model, attribute: sync.attribute, at: address, on: &device, now: now)
                }
                if short == "ColorSetting" {
                    // Matter ColorCapabilities bits: 0 hue/saturation, 3 XY, 4 color temperature.
                    var capabilities: Int64 = 0
                    if values["colorModel"] != nil { capabilities |= 0b1001 }
                    if values["colorTemperatureRange"] != nil { capabilities |= 0b1_0000 }
                    report(.int(capabilities), attribute: "colorCapabilities", at: address, on: &device, now: now)
                }
            } else if let trait = c2c.googleTrait(short), let address = try? device.resolve(trait) {
                try? device.modifyTrait(at: address) { instance in
                    for (name, value) in attributes { instance.attributes[name] = value }
                }
            }
        }
    }

    private mutating func report(
        _ value: AttributeValue, attribute: String, at address: TraitAddress, on device: inout Device, now: Date
    ) {
        do {
            try device.report(value, attribute: attribute, at: address, catalog: c2c.catalog, time: now)
        } catch {
            problem("attributes", "\(error) (dropped)")
        }
    }
}
