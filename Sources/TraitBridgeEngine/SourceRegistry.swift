import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// Where the configured sources become plug-ins: the one place that names every family. A new
/// family is a folder in `TraitBridgeSources` and a line here (with its configuration block).
/// The order is the claim order for topics no route names yet.
enum SourceRegistry {
    static func plugins(
        configuration: BridgeConfiguration, catalog: Catalog,
        zigbee2mqtt: Zigbee2MQTTTable?, tasmota: TasmotaTable?, shelly: ShellyTable?
    ) -> [any SourcePlugin] {
        var plugins: [any SourcePlugin] = []
        if let instance = configuration.zigbee2mqtt, let table = zigbee2mqtt {
            plugins.append(Zigbee2MQTTPlugin(
                source: Zigbee2MQTTSource(table: table, catalog: catalog, instance: instance.instance), baseTopic: instance.baseTopic,
                locality: instance.locality, mainsStaleness: instance.mainsStaleness, batteryStaleness: instance.batteryStaleness,
                deviceStaleness: instance.deviceStaleness))
        }
        if let instance = configuration.tasmota, let table = tasmota {
            plugins.append(TasmotaPlugin(
                source: TasmotaSource(table: table, catalog: catalog, instance: instance.instance),
                discoveryPrefix: instance.discoveryPrefix, locality: instance.locality, staleness: instance.staleness))
        }
        if let instance = configuration.shelly, let table = shelly {
            let source = ShellySource(table: table, catalog: catalog, instance: instance.instance, rpcSource: configuration.prefix + "/shelly")
            plugins.append(ShellyPlugin(source: source, locality: instance.locality, staleness: instance.staleness))
        }
        return plugins
    }
}

/// MQTT topic filters (`+` one level, `#` the rest), for telling whether a filter covers a topic.
enum TopicFilter {
    static func matches(_ filter: String, _ topic: String) -> Bool {
        let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in filterLevels.enumerated() {
            if level == "#" { return index < topicLevels.count || index == topicLevels.count }
            guard index < topicLevels.count, level == "+" || level == topicLevels[index] else { return false }
        }
        return filterLevels.count == topicLevels.count
    }
}
