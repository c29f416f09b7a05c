public import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// The one list of source families: what the config file may name, which tables are read from
/// the mappings folder, and the claim order of topics no route names yet (the list's order).
///
/// The engine and the CLI go through it and name no family; a test adds a family of its own with
/// ``adding(_:)``.
public struct SourceRegistry: Sendable {
    public private(set) var families: [any SourceFamily]

    public init(families: [any SourceFamily]) {
        self.families = families
    }

    /// The families TraitBridge ships, in claim order.
    public static let standard = SourceRegistry(families: [
        Zigbee2MQTTFamily(),
        TasmotaFamily(),
        HADiscoveryFamily(),
        ShellyFamily(),
        MatterFamily(),
        FrigateFamily(),
        GenericFamily(),
    ])

    /// This registry with one more family, claiming after the others.
    public func adding(_ family: any SourceFamily) -> SourceRegistry {
        SourceRegistry(families: families + [family])
    }

    public func family(named name: String) -> (any SourceFamily)? {
        families.first { $0.name == name }
    }

    /// The config file's keys that are source sections.
    public var configKeys: [String] { families.compactMap(\.configKey) }

    /// The instances a bridge runs with when its config file names no source.
    public var defaultInstances: [SourceInstance] { families.flatMap(\.defaultInstances) }

    /// Reads every family's table; the error is the table's own (it names file:line:col).
    public func loadTables(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> SourceTables {
        var tables = SourceTables()
        for family in families {
            tables[family.name] = try family.loadTable(mappingsDirectory: mappingsDirectory, catalog: catalog)
        }
        return tables
    }

    /// `instances` with the section under `key` read again: that family's instances are replaced
    /// by the section's (an empty list when it turns the family off). `nil` when no family has `key`.
    public func reading(
        _ section: JSON, key: String, at path: JSONPath, into instances: [SourceInstance]
    ) throws(SourceSettingsError) -> [SourceInstance]? {
        guard let family = families.first(where: { $0.configKey == key }) else { return nil }
        let read = try family.instances(from: section, at: path)
        return instances.filter { $0.family != family.name } + read
    }

    /// The plug-ins of `instances`, in claim order (the registry's, then the instances' own).
    public func plugins(
        for instances: [SourceInstance], tables: SourceTables, catalog: Catalog, bridgePrefix: String,
        defaultLocality: TraitLocality = .localPeer
    ) -> [any SourcePlugin] {
        var plugins: [any SourcePlugin] = []
        for family in families {
            for instance in instances where instance.family == family.name {
                let context = SourcePluginContext(
                    catalog: catalog, bridgePrefix: bridgePrefix, defaultLocality: defaultLocality,
                    earlierFamilies: Set(plugins.map(\.family)))
                if let plugin = family.plugin(for: instance, table: tables[family.name], context: context) {
                    plugins.append(plugin)
                }
            }
        }
        return plugins
    }
}

/// What each family read from the mappings folder, by family name.
public struct SourceTables: Sendable {
    private var byFamily: [String: any Sendable] = [:]

    public init() {}

    public subscript(family: String) -> (any Sendable)? {
        get { byFamily[family] }
        set { byFamily[family] = newValue }
    }
}
