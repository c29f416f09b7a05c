public import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// Tasmota in the registry: the `tasmota` section (where native discovery publishes, staleness),
/// `tasmota.json` from the mappings, on unless the section is given otherwise.
public struct TasmotaFamily: SourceFamily {
    public struct Settings: Sendable, Equatable {
        /// Where Tasmota publishes discovery (`tasmota/discovery/<mac>/config`).
        public var discoveryPrefix = "tasmota/discovery"
        /// Silence longer than this, without an LWT, makes a device unknown.
        public var staleness: Duration = .seconds(900)

        public init() {}
    }

    public init() {}

    public var name: String { TasmotaSource.family }
    public var configKey: String? { "tasmota" }
    public var defaultInstances: [SourceInstance] { [.tasmota()] }

    public var tableFile: String? { "sources/tasmota.json" }

    public func loadTable(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> (any Sendable)? {
        try TasmotaTable.load(mappingsDirectory: mappingsDirectory, catalog: catalog)
    }

    public func instances(from section: JSON, at path: JSONPath) throws(SourceSettingsError) -> [SourceInstance] {
        var instance = SourceInstance.tasmota()
        var settings = Settings()
        let allowed = ["discoveryPrefix", "locality", "stalenessSeconds"]
        for (key, field, fieldAt) in try SourceSection.members(section, at: path, allowed: allowed) {
            switch key {
            case "discoveryPrefix":
                settings.discoveryPrefix = try SourceSection.topicPrefix(field, at: fieldAt, mayEndWithSlash: true)
            case "locality": instance.locality = try SourceSection.locality(field, at: fieldAt)
            default: settings.staleness = try SourceSection.seconds(field, at: fieldAt)
            }
        }
        instance.settings = settings
        return [instance]
    }

    public func plugin(for instance: SourceInstance, table: (any Sendable)?, context: SourcePluginContext)
        -> (any SourcePlugin)?
    {
        guard let table = table as? TasmotaTable else { return nil }
        let settings = instance.settings as? Settings ?? Settings()
        return TasmotaPlugin(
            source: TasmotaSource(table: table, catalog: context.catalog, instance: instance.name),
            discoveryPrefix: settings.discoveryPrefix, locality: instance.locality ?? context.defaultLocality,
            staleness: settings.staleness)
    }
}

extension SourceInstance {
    /// Tasmota devices announced by native discovery.
    public static func tasmota(
        locality: TraitLocality? = nil, discoveryPrefix: String = "tasmota/discovery",
        staleness: Duration = .seconds(900)
    ) -> SourceInstance {
        var settings = TasmotaFamily.Settings()
        settings.discoveryPrefix = discoveryPrefix
        settings.staleness = staleness
        return SourceInstance(family: TasmotaSource.family, locality: locality, settings: settings)
    }
}
