public import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// Home Assistant MQTT discovery in the registry: the `homeAssistant` section (on or off, the
/// discovery prefix, staleness), `homeassistant.json` from the mappings. Its plug-in skips the
/// entities that families before it in the registry publish themselves (zigbee2mqtt's own).
public struct HADiscoveryFamily: SourceFamily {
    public struct Settings: Sendable, Equatable {
        /// Where configs are published (`homeassistant/<component>/…/config`); may have several levels.
        public var discoveryPrefix = "homeassistant"
        /// Silence longer than this, for an entity without availability topics, makes it unknown.
        public var staleness: Duration = .seconds(900)

        public init() {}
    }

    public init() {}

    public var name: String { HADiscoverySource.family }
    public var configKey: String? { "homeAssistant" }
    public var defaultInstances: [SourceInstance] { [.homeAssistant()] }

    public var tableFile: String? { "sources/homeassistant.json" }

    public func loadTable(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> (any Sendable)? {
        try HomeAssistantTable.load(mappingsDirectory: mappingsDirectory, catalog: catalog)
    }

    public func instances(from section: JSON, at path: JSONPath) throws(SourceSettingsError) -> [SourceInstance] {
        var instance = SourceInstance.homeAssistant()
        var settings = Settings()
        var isEnabled = true
        let allowed = ["enabled", "discoveryPrefix", "locality", "stalenessSeconds"]
        for (key, field, fieldAt) in try SourceSection.members(section, at: path, allowed: allowed) {
            switch key {
            case "enabled": isEnabled = try SourceSection.flag(field, at: fieldAt)
            case "discoveryPrefix": settings.discoveryPrefix = try SourceSection.topicPrefix(field, at: fieldAt)
            case "locality": instance.locality = try SourceSection.locality(field, at: fieldAt)
            default: settings.staleness = try SourceSection.seconds(field, at: fieldAt)
            }
        }
        instance.settings = settings
        return isEnabled ? [instance] : []
    }

    public func plugin(for instance: SourceInstance, table: (any Sendable)?, context: SourcePluginContext)
        -> (any SourcePlugin)?
    {
        guard let table = table as? HomeAssistantTable else { return nil }
        let settings = instance.settings as? Settings ?? Settings()
        let source = HADiscoverySource(
            table: table, catalog: context.catalog, instance: instance.name, prefix: settings.discoveryPrefix)
        // Entities a source read directly also published (zigbee2mqtt's own discovery) make no twin,
        // and the bridge's own discovery (a TraitBridge's, this one's or another's) is never read back.
        return HADiscoveryPlugin(
            source: source, locality: instance.locality ?? context.defaultLocality, staleness: settings.staleness,
            skippedOrigins: context.earlierFamilies.union(["traitbridge"]))
    }
}

extension SourceInstance {
    /// Entities announced by Home Assistant MQTT discovery.
    public static func homeAssistant(
        locality: TraitLocality? = nil, discoveryPrefix: String = "homeassistant", staleness: Duration = .seconds(900)
    ) -> SourceInstance {
        var settings = HADiscoveryFamily.Settings()
        settings.discoveryPrefix = discoveryPrefix
        settings.staleness = staleness
        return SourceInstance(family: HADiscoverySource.family, locality: locality, settings: settings)
    }
}
