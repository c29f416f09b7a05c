public import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// Generic topics in the registry: no config section, the devices the mappings folder's
/// `generic/` files describe; one plug-in when they describe any.
public struct GenericFamily: SourceFamily {
    public init() {}

    public var name: String { GenericPlugin.family }
    public var configKey: String? { nil }
    public var defaultInstances: [SourceInstance] { [.generic] }

    public func loadTable(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> (any Sendable)? {
        try GenericDevicesLoader.load(mappingsDirectory: mappingsDirectory, catalog: catalog)
    }

    public func instances(from section: JSON, at path: JSONPath) throws(SourceSettingsError) -> [SourceInstance] {
        throw SourceSettingsError(path, "generic devices are described by the mappings folder's generic/ files")
    }

    public func plugin(for instance: SourceInstance, table: (any Sendable)?, context: SourcePluginContext)
        -> (any SourcePlugin)?
    {
        guard let definitions = table as? [GenericDeviceDefinition], !definitions.isEmpty else { return nil }
        return GenericPlugin(definitions: definitions)
    }
}

extension SourceInstance {
    /// The devices of the mappings folder's generic files.
    public static var generic: SourceInstance { SourceInstance(family: GenericPlugin.family) }
}
