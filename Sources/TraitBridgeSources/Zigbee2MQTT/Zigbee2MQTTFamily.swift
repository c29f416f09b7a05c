public import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// zigbee2mqtt in the registry: the `zigbee2mqtt` section (one network, or a list of them, each
/// with its base topic), `zigbee2mqtt.json` from the mappings, one plug-in per network.
public struct Zigbee2MQTTFamily: SourceFamily {
    /// One network's settings beyond its name and locality.
    public struct Settings: Sendable, Equatable {
        public var baseTopic = "zigbee2mqtt"
        /// Overrides of the table's staleness budgets, and per-device ones (IEEE address or name).
        public var mainsStaleness: Duration?
        public var batteryStaleness: Duration?
        public var deviceStaleness: [String: Duration] = [:]

        public init() {}
    }

    static let keys = [
        "baseTopic", "instance", "locality", "mainsStalenessSeconds", "batteryStalenessSeconds",
        "deviceStalenessSeconds",
    ]

    public init() {}

    public var name: String { Zigbee2MQTTSource.family }
    public var configKey: String? { "zigbee2mqtt" }
    public var defaultInstances: [SourceInstance] { [.zigbee2mqtt()] }

    public var tableFile: String? { "sources/zigbee2mqtt.json" }

    public func loadTable(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> (any Sendable)? {
        try Zigbee2MQTTTable.load(mappingsDirectory: mappingsDirectory, catalog: catalog)
    }

    public func instances(from section: JSON, at path: JSONPath) throws(SourceSettingsError) -> [SourceInstance] {
        let sections = try SourceSection.sections(section, at: path, family: name)
        var instances: [SourceInstance] = []
        for (value, at) in sections {
            var instance = SourceInstance.zigbee2mqtt()
            var settings = Settings()
            let shape = "expected an object with baseTopic, instance, locality…"
            for (key, field, fieldAt) in try SourceSection.members(value, at: at, allowed: Self.keys, shape: shape) {
                switch key {
                case "baseTopic", "instance":
                    let text = try SourceSection.topicWord(field, at: fieldAt)
                    if key == "baseTopic" { settings.baseTopic = text } else { instance.name = text }
                case "locality": instance.locality = try SourceSection.locality(field, at: fieldAt)
                case "mainsStalenessSeconds": settings.mainsStaleness = try SourceSection.seconds(field, at: fieldAt)
                case "batteryStalenessSeconds":
                    settings.batteryStaleness = try SourceSection.seconds(field, at: fieldAt)
                default:  // deviceStalenessSeconds
                    guard field.kind == .object else {
                        throw SourceSettingsError(fieldAt, "expected an object of device → seconds")
                    }
                    for (device, budget) in field.members {
                        settings.deviceStaleness[device] = try SourceSection.seconds(
                            budget, at: fieldAt.appending(device))
                    }
                }
            }
            instance.settings = settings
            instances.append(instance)
        }
        // Two networks on one broker need their own instance names and base topics.
        let paths = sections.map(\.path)
        try SourceSection.requireUnique(instances, at: paths, family: name)
        try SourceSection.requireUnique(instances, at: paths, family: name, key: "baseTopic") {
            ($0.settings as? Settings)?.baseTopic ?? ""
        }
        return instances
    }

    public func plugin(for instance: SourceInstance, table: (any Sendable)?, context: SourcePluginContext)
        -> (any SourcePlugin)?
    {
        guard let table = table as? Zigbee2MQTTTable else { return nil }
        let settings = instance.settings as? Settings ?? Settings()
        return Zigbee2MQTTPlugin(
            source: Zigbee2MQTTSource(table: table, catalog: context.catalog, instance: instance.name),
            baseTopic: settings.baseTopic, locality: instance.locality ?? context.defaultLocality,
            mainsStaleness: settings.mainsStaleness, batteryStaleness: settings.batteryStaleness,
            deviceStaleness: settings.deviceStaleness)
    }
}

extension SourceInstance {
    /// A zigbee2mqtt network: its base topic, and its staleness budgets when not the table's.
    public static func zigbee2mqtt(
        name: String = "default", baseTopic: String = "zigbee2mqtt", locality: TraitLocality? = nil,
        mainsStaleness: Duration? = nil, batteryStaleness: Duration? = nil, deviceStaleness: [String: Duration] = [:]
    ) -> SourceInstance {
        var settings = Zigbee2MQTTFamily.Settings()
        settings.baseTopic = baseTopic
        settings.mainsStaleness = mainsStaleness
        settings.batteryStaleness = batteryStaleness
        settings.deviceStaleness = deviceStaleness
        return SourceInstance(family: Zigbee2MQTTSource.family, name: name, locality: locality, settings: settings)
    }
}
