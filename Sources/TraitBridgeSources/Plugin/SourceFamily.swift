public import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// A kind of source the bridge can read (zigbee2mqtt, Tasmota…), as ``SourceRegistry`` lists it.
///
/// It is everything the rest of the bridge needs to know of a family, so that neither the engine
/// nor the CLI names one: its section of the config file (read and checked here, errors naming
/// the JSON path), the table it reads from the mappings folder, and how one configured instance
/// becomes a ``SourcePlugin``. A new family is its folder (plug-in and family), one line in
/// ``SourceRegistry/standard`` and its conformance driver.
public protocol SourceFamily: Sendable {
    /// The family in every ``SourceReference`` its plug-ins make (`zigbee2mqtt`).
    var name: String { get }
    /// Its section's key in the config file (`homeAssistant`); `nil`: it has none.
    var configKey: String? { get }
    /// The instances it runs with when the config file has no section for it (none: only on request).
    var defaultInstances: [SourceInstance] { get }
    /// Its table's file in the mappings folder (`sources/tasmota.json`), which `mappings validate`
    /// checks when present; `nil`: none.
    var tableFile: String? { get }
    /// What it reads from the mappings folder, once at start (`nil`: nothing).
    func loadTable(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> (any Sendable)?
    /// Reads its section of the config file; the error names the path of what is wrong.
    func instances(from section: JSON, at path: JSONPath) throws(SourceSettingsError) -> [SourceInstance]
    /// The plug-in of one configured instance, or `nil` when there is nothing to read (a generic
    /// table with no device, a table not loaded).
    func plugin(for instance: SourceInstance, table: (any Sendable)?, context: SourcePluginContext)
        -> (any SourcePlugin)?
}

extension SourceFamily {
    public var defaultInstances: [SourceInstance] { [] }
    public var tableFile: String? { nil }
    public func loadTable(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> (any Sendable)? { nil }
}

/// One configured instance of a family: its name and locality (the same for every family) and
/// the settings its family decoded and alone reads.
public struct SourceInstance: Sendable {
    public var family: String
    /// `default` unless two instances share the broker (two zigbee2mqtt networks).
    public var name: String
    /// `nil`: by the broker (`localPeer` on the local network, `remote` otherwise).
    public var locality: TraitLocality?
    /// The family's own settings (a base topic, staleness budgets), as its family decoded them.
    public var settings: any Sendable

    public init(family: String, name: String = "default", locality: TraitLocality? = nil, settings: any Sendable = ()) {
        self.family = family
        self.name = name
        self.locality = locality
        self.settings = settings
    }
}

/// What a family may know of the bridge when it makes a plug-in.
public struct SourcePluginContext: Sendable {
    public var catalog: Catalog
    /// The bridge's topic prefix (`traitbridge`): a source that talks back under it (Shelly RPC).
    public var bridgePrefix: String
    /// The locality of an instance that gives none.
    public var defaultLocality: TraitLocality
    /// The families of the plug-ins made before this one, in claim order.
    public var earlierFamilies: Set<String>

    public init(
        catalog: Catalog, bridgePrefix: String, defaultLocality: TraitLocality, earlierFamilies: Set<String> = []
    ) {
        self.catalog = catalog
        self.bridgePrefix = bridgePrefix
        self.defaultLocality = defaultLocality
        self.earlierFamilies = earlierFamilies
    }
}

/// A source's section of the config file that cannot be used: where, and what is allowed.
public struct SourceSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: JSONPath
    public var message: String

    public init(_ path: JSONPath, _ message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
