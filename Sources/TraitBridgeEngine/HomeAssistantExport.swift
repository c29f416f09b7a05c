public import TraitBridgeCloud
public import TraitBridgeHomeAssistant

/// Home Assistant MQTT discovery out (`homeAssistantExport` in the config file): which devices Home
/// Assistant is given and how. Off without the section.
public struct HomeAssistantExport: Sendable {
    /// The table, the catalog and the topics' names.
    public var discovery: HomeAssistantDiscovery
    /// Which devices are given (by id, room, device type), as for Google and HomeKit.
    public var rules: ExportRules
    /// Source instances (`zigbee2mqtt`, `tasmota/attic`) whose devices are not given: Home
    /// Assistant has them already (zigbee2mqtt's own discovery). A device that another source
    /// also feeds is given all the same.
    public var skippedSources: Set<String>
    /// False: give nothing, and clear the configs an earlier run published.
    public var isEnabled: Bool

    public init(
        discovery: HomeAssistantDiscovery, rules: ExportRules = ExportRules(), skippedSources: Set<String> = [],
        isEnabled: Bool = true
    ) {
        self.discovery = discovery
        self.rules = rules
        self.skippedSources = skippedSources
        self.isEnabled = isEnabled
    }
}
