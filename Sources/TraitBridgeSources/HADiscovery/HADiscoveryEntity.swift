public import TraitBridgeMapping
public import TraitBridgeModel

/// One Home Assistant entity read from its discovery config: the device type it adds to its
/// device, the topics whose values feed that type's attributes, the commands it accepts, and the
/// topics that say whether it is available.
public struct HADiscoveryEntity: Sendable {
    /// `<component>/[<node>/]<object>`, or `device/<id>/<component key>` for device discovery.
    public var key: String
    /// The config topic it came from (a device config carries several entities).
    public var configTopic: String
    public var component: String
    public var uniqueID: String?
    /// The entity's own name (`nil`: it is the device's main feature and takes the device's name).
    public var name: String?
    public var deviceRef: HADiscoveryDeviceRef
    /// The program that published the config (`origin.name`: `Zigbee2MQTT`, `bla2mqtt`).
    public var origin: String?
    public var deviceType: DeviceTypeInstance
    public var channels: [HAChannel]
    public var commands: [HACommand]
    public var availability: [HAAvailability]
    public var availabilityMode: HAAvailabilityMode
    /// What was read but not mapped (an unsupported template, a colour topic), said once at discovery.
    public var notes: [SourceProblem]
    /// `migrate_discovery` was announced: the entity moves to a device config, keep it until then.
    public var isMigrating = false
    /// The config's own range of an attribute, in the model's unit (a light's `min_mireds`…).
    public var modelRanges: [String: ClosedRange<Double>] = [:]
    /// The values the config allows an attribute (a climate's `modes`), in the model's terms.
    public var modelValidValues: [String: [AttributeValue]] = [:]

    /// The source reference of this entity's traits (one per entity: each has its own availability).
    public var source: SourceReference? { deviceType.traits.first?.source }

    /// What the entity feeds at `address`, each attribute once: writable when it has a command,
    /// its metadata the catalog's narrowed to the config's range. The export and the description
    /// read these to say what this device (not the cluster) can do.
    public func bindings(at address: TraitAddress, catalog: Catalog) -> [SourceBinding] {
        var attributes: [String: Bool] = [:]
        for channel in channels where channel.address == address {
            attributes[channel.attribute] = attributes[channel.attribute] ?? false
            if case .color(let format) = channel.reading {
                attributes[format.attributes.1] = attributes[format.attributes.1] ?? false
            }
        }
        for command in commands where command.address == address { attributes[command.attribute] = true }
        // What the config says of an attribute it has no topic for (a climate's `modes`) still
        // narrows it: a heat-only thermostat is not one that can be off.
        for attribute in Set(modelValidValues.keys).union(modelRanges.keys) where attributes[attribute] == nil {
            if deviceType.key == address.deviceTypeKey, deviceType.trait(address.traitID) != nil,
                (try? catalog.attributeMetadata(address.traitID, attribute)) != nil
            {
                attributes[attribute] = false
            }
        }
        return attributes.keys.sorted().compactMap { attribute in
            guard var metadata = try? catalog.attributeMetadata(address.traitID, attribute) else { return nil }
            if let range = modelRanges[attribute] {
                metadata.minimum = max(metadata.minimum ?? -.infinity, range.lowerBound)
                metadata.maximum = min(metadata.maximum ?? .infinity, range.upperBound)
            }
            if let allowed = modelValidValues[attribute] {
                metadata.validValues = (metadata.validValues ?? allowed.map { ValidValue($0) }).filter {
                    allowed.contains($0.value)
                }
            }
            return SourceBinding(
                address: address, attribute: attribute, payloadKey: attribute, pipeline: ValuePipeline(),
                metadata: metadata,
                isWritable: attributes[attribute] == true)
        }
    }

    /// Every topic the entity reads (state and availability).
    public var topics: Set<String> { Set(channels.map(\.topic) + availability.map(\.topic)) }
}

/// The HA `device` of an entity: what groups entities into one TraitBridge device.
public struct HADiscoveryDeviceRef: Sendable, Hashable {
    /// The first identifier (or the entity's unique id when it has no device): the native id.
    public var nativeID: String
    /// `ha-<native id>`: derived once here, not per message.
    public var deviceID: DeviceID
    public var name: String?
    public var identity: DeviceIdentity
    public var info: DeviceInfo
    public var suggestedArea: String?
}

/// How one topic of an entity feeds one attribute.
public struct HAChannel: Sendable {
    public enum Reading: Sendable {
        /// The rendered text must be one of `words`; `ignored` words are transitional (`locking`).
        case words([String: AttributeValue], ignored: Set<String>)
        /// A number (text or JSON number), then the pipeline.
        case number
        /// The rendered word through the pipeline (a map: HVAC modes).
        case text
        /// A JSON-schema light state object (`state`, `brightness`, `color_temp`, `color`).
        case jsonLight(HAJSONLight)
        /// A default-schema light's colour, comma-separated (`h,s`, `x,y` or `r,g,b`): two
        /// attributes from one message.
        case color(HAColorFormat)
    }

    public var topic: String
    public var template: HAValueTemplate
    public var reading: Reading
    public var address: TraitAddress
    public var attribute: String
    public var pipeline: ValuePipeline
    public var metadata: AttributeMetadata
}

/// How a default-schema light's colour topic writes a colour, and which model attributes hold it.
public enum HAColorFormat: String, Sendable, Hashable {
    /// `hue,saturation` in degrees and percent → currentHue, currentSaturation.
    case hs
    /// `x,y` → currentX, currentY.
    case xy
    /// `red,green,blue` 0…255 → held as currentX, currentY.
    case rgb

    /// The two attributes the model holds the colour in.
    public var attributes: (String, String) {
        self == .hs ? ("currentHue", "currentSaturation") : ("currentX", "currentY")
    }
}

/// What a JSON-schema light reads and writes, and in which scales.
public struct HAJSONLight: Sendable, Hashable {
    public var deviceTypeKey: String
    /// HA's brightness scale (255 by default; zigbee2mqtt says 254).
    public var brightnessScale: Double?
    public var hasColorTemperature: Bool
    /// `color_temp_kelvin`: colour temperatures in Kelvin instead of mireds.
    public var colorTemperatureInKelvin: Bool
    /// Colour as CIE xy (`xy` mode): `color: {x, y}`.
    public var hasXY: Bool
    public var hasHueSaturation: Bool
    /// Colour as red, green, blue (`rgb`, `rgbw`, `rgbww` modes): `color: {r, g, b}`, which
    /// TraitBridge holds as xy (the model's colour) and converts both ways.
    public var hasRGB = false

    /// The model holds this light's colour as xy (read from `x, y` or from `r, g, b`).
    public var hasXYModel: Bool { hasXY || hasRGB }
}

/// A write of one attribute turned into a message on the entity's command topic.
public struct HACommand: Sendable {
    public enum Encoding: Sendable {
        /// The model value picks a payload word (`ON`/`OFF`, `LOCK`/`UNLOCK`, `OPEN`/`CLOSE`).
        case words([(model: AttributeValue, payload: String)])
        /// The value through the inverse pipeline, printed into the template.
        case number(HACommandTemplate, integral: Bool, range: ClosedRange<Double>?)
        /// A word through the inverse pipeline (a HVAC mode), printed into the template.
        case word(HACommandTemplate, allowed: [String])
        /// Part of a JSON-schema light command object.
        case jsonLight(HAJSONLight)
        /// Half of a default-schema light's colour; both halves make one message.
        case color(HAColorFormat)
    }

    public var address: TraitAddress
    public var attribute: String
    public var topic: String
    public var encoding: Encoding
    public var pipeline: ValuePipeline
}

/// One availability topic with its words (`payload_available` / `payload_not_available`).
public struct HAAvailability: Sendable, Hashable {
    public var topic: String
    public var template: HAValueTemplate
    public var available: String
    public var notAvailable: String
}

/// How several availability topics combine (HA's `availability_mode`).
public enum HAAvailabilityMode: String, Sendable, Hashable {
    /// Available only when every topic says available.
    case all
    /// Available when any topic says available.
    case any
    /// The topic that spoke last decides (HA's default).
    case latest
}
