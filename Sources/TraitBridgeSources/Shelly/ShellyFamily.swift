public import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// Shelly in the registry: the `shelly` section (on or off, staleness), `shelly.json` from the
/// mappings; Gen1 (`shellies/…`) and Gen2+ devices (any prefix) alike.
public struct ShellyFamily: SourceFamily {
    public struct Settings: Sendable, Equatable {
        /// Silence longer than this, without an `online` message, makes a device unknown.
        public var staleness: Duration = .seconds(900)

        public init() {}
    }

    public init() {}

    public var name: String { ShellySource.family }
    public var configKey: String? { "shelly" }
    public var defaultInstances: [SourceInstance] { [.shelly()] }

    public var tableFile: String? { "sources/shelly.json" }

    public func loadTable(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> (any Sendable)? {
        try ShellyTable.load(mappingsDirectory: mappingsDirectory, catalog: catalog)
    }

    public func instances(from section: JSON, at path: JSONPath) throws(SourceSettingsError) -> [SourceInstance] {
        var instance = SourceInstance.shelly()
        var settings = Settings()
        var isEnabled = true
        let allowed = ["enabled", "locality", "stalenessSeconds"]
        for (key, field, fieldAt) in try SourceSection.members(section, at: path, allowed: allowed) {
            switch key {
            case "enabled": isEnabled = try SourceSection.flag(field, at: fieldAt)
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
        guard let table = table as? ShellyTable else { return nil }
        let settings = instance.settings as? Settings ?? Settings()
        let source = ShellySource(
            table: table, catalog: context.catalog, instance: instance.name, rpcSource: context.bridgePrefix + "/shelly"
        )
        return ShellyPlugin(
            source: source, locality: instance.locality ?? context.defaultLocality, staleness: settings.staleness)
    }
}

extension SourceInstance {
    /// Shelly Gen1 and Gen2+ devices.
    public static func shelly(locality: TraitLocality? = nil, staleness: Duration = .seconds(900)) -> SourceInstance {
        var settings = ShellyFamily.Settings()
        settings.staleness = staleness
        return SourceInstance(family: ShellySource.family, locality: locality, settings: settings)
    }
}
