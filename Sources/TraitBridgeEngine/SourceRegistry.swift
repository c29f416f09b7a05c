import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// Where the configured sources become plug-ins: the one place that names every family. A new
/// family is a folder in `TraitBridgeSources` and a line here (with its configuration block).
/// The order is the claim order for topics no route names yet.
enum SourceRegistry {
    static func plugins(
        configuration: BridgeConfiguration, catalog: Catalog,
        zigbee2mqtt: Zigbee2MQTTTable?, tasmota: TasmotaTable?, shelly: ShellyTable?,
        homeAssistant: HomeAssistantTable?,
        generic: [GenericDeviceDefinition]
    ) -> [any SourcePlugin] {
        var plugins: [any SourcePlugin] = []
        for instance in configuration.zigbee2mqttInstances {
            guard let table = zigbee2mqtt else { break }
            plugins.append(
                Zigbee2MQTTPlugin(
                    source: Zigbee2MQTTSource(table: table, catalog: catalog, instance: instance.instance),
                    baseTopic: instance.baseTopic,
                    locality: instance.locality, mainsStaleness: instance.mainsStaleness,
                    batteryStaleness: instance.batteryStaleness,
                    deviceStaleness: instance.deviceStaleness))
        }
        if let instance = configuration.tasmota, let table = tasmota {
            plugins.append(
                TasmotaPlugin(
                    source: TasmotaSource(table: table, catalog: catalog, instance: instance.instance),
                    discoveryPrefix: instance.discoveryPrefix, locality: instance.locality,
                    staleness: instance.staleness))
        }
        if let instance = configuration.homeAssistant, let table = homeAssistant {
            let source = HADiscoverySource(
                table: table, catalog: catalog, instance: instance.instance, prefix: instance.discoveryPrefix)
            // Entities a source read directly also published (zigbee2mqtt's own discovery) make no twin.
            plugins.append(
                HADiscoveryPlugin(
                    source: source, locality: instance.locality, staleness: instance.staleness,
                    skippedOrigins: Set(plugins.map(\.family))))
        }
        if let instance = configuration.shelly, let table = shelly {
            let source = ShellySource(
                table: table, catalog: catalog, instance: instance.instance, rpcSource: configuration.prefix + "/shelly"
            )
            plugins.append(ShellyPlugin(source: source, locality: instance.locality, staleness: instance.staleness))
        }
        for instance in configuration.matter {
            plugins.append(
                MatterPlugin(
                    source: MatterSource(catalog: catalog, instance: instance.instance), locality: instance.locality))
        }
        if !generic.isEmpty { plugins.append(GenericPlugin(definitions: generic)) }
        return plugins
    }
}
