import Foundation
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources
import TraitBridgeTesting

/// Builds bridge states over the shipped mappings, and reads corpus files.
enum EngineFixtures {
    static let paths = TestPaths(filePath: #filePath)
    static let repository = paths.repository
    static let corpus = paths.corpus

    /// The shipped catalog and every family's table, read once.
    static let mappings: Result<(Catalog, SourceTables), any Error> = Result {
        let catalog = try CatalogLoader.load(mappingsDirectory: repository + "/mappings")
        let tables = try SourceRegistry.standard.loadTables(
            mappingsDirectory: repository + "/mappings", catalog: catalog)
        return (catalog, tables)
    }

    static func mappingsDirectory() -> String { repository + "/mappings" }

    static func state(
        commandTimeout: Duration = .seconds(3), withCloud: Bool = false, withTasmota: Bool = false,
        withShelly: Bool = false,
        withHomeAssistant: Bool = false, withMatter: Bool = false, withZigbee2MQTT: Bool = true,
        withFrigate: Bool = false,
        cloudAliases: [String: DeviceID] = [:], limits: BridgeLimits = BridgeLimits(),
        homeAssistantExport: HomeAssistantExport? = nil
    ) throws -> BridgeState {
        let (catalog, tables) = try mappings.get()
        var sources: [SourceInstance] = []
        if withZigbee2MQTT {
            sources.append(
                .zigbee2mqtt(locality: .localPeer, mainsStaleness: .seconds(600), batteryStaleness: .seconds(90_000)))
        }
        if withTasmota { sources.append(.tasmota(locality: .localPeer)) }
        if withShelly { sources.append(.shelly(locality: .localPeer)) }
        if withHomeAssistant { sources.append(.homeAssistant(locality: .localPeer)) }
        if withMatter { sources.append(.matter(url: "ws://127.0.0.1:5580/ws")) }
        if withFrigate { sources.append(.frigate(locality: .localPeer, go2rtc: "http://198.18.0.2:1984")) }
        var configuration = BridgeConfiguration(
            prefix: "traitbridge", brokerDescription: "mqtt://127.0.0.1:1883", sources: sources,
            commandTimeout: commandTimeout)
        configuration.cloudAliases = cloudAliases
        configuration.limits = limits
        configuration.homeAssistant = homeAssistantExport
        let cloud =
            withCloud ? try GoogleC2CTable.load(mappingsDirectory: repository + "/mappings", catalog: catalog) : nil
        return BridgeState(
            configuration: configuration, catalog: catalog, tables: tables, graph: try HomeGraph(), cloud: cloud,
            now: Date())
    }

    static func corpusBytes(_ relativePath: String) throws -> [UInt8] {
        guard let corpus else { throw CocoaError(.fileNoSuchFile) }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: corpus + "/" + relativePath)))
    }

    /// A small bridge/devices payload written here (so the core tests need no ../shared):
    /// a colour-temperature light, a climate sensor on battery, a dual relay.
    static let devicesPayload: [UInt8] = Array(
        """
        [
          {"ieee_address":"0x0000000000000000","type":"Coordinator","friendly_name":"Coordinator"},
          {"ieee_address":"0x00158d0001000001","type":"Router","friendly_name":"Hall light","power_source":"Mains (single phase)",
           "definition":{"vendor":"IKEA","model":"LED1545G12","exposes":[
             {"type":"light","features":[
               {"type":"binary","name":"state","property":"state","access":7,"value_on":"ON","value_off":"OFF","value_toggle":"TOGGLE"},
               {"type":"numeric","name":"brightness","property":"brightness","access":7,"value_min":0,"value_max":254},
               {"type":"numeric","name":"color_temp","property":"color_temp","access":7,"value_min":250,"value_max":454,"unit":"mired"}]},
             {"type":"numeric","name":"linkquality","property":"linkquality","access":1}]}},
          {"ieee_address":"0x00158d0001000002","type":"EndDevice","friendly_name":"Climate","power_source":"Battery",
           "definition":{"vendor":"Aqara","model":"WSDCGQ11LM","exposes":[
             {"type":"numeric","name":"temperature","property":"temperature","access":1,"unit":"°C"},
             {"type":"numeric","name":"humidity","property":"humidity","access":1,"unit":"%"},
             {"type":"numeric","name":"battery","property":"battery","access":1,"unit":"%"}]}},
          {"ieee_address":"0x00158d0001000003","type":"Router","friendly_name":"Relay","power_source":"Mains (single phase)",
           "definition":{"vendor":"Aqara","model":"DCM-K01","exposes":[
             {"type":"switch","endpoint":"l1","features":[{"type":"binary","name":"state","property":"state_l1","access":7,"value_on":"ON","value_off":"OFF"}]},
             {"type":"switch","endpoint":"l2","features":[{"type":"binary","name":"state","property":"state_l2","access":7,"value_on":"ON","value_off":"OFF"}]}]}}
        ]
        """.utf8)

    static let light = try! DeviceID("z2m-0x00158d0001000001")  // literal ids of the payload above
    static let climate = try! DeviceID("z2m-0x00158d0001000002")
    static let relay = try! DeviceID("z2m-0x00158d0001000003")
}

extension BridgeEffects {
    /// The last payload published on `topic`, as JSON.
    func last(_ topic: String) -> JSON? {
        guard let outgoing = publications.last(where: { $0.topic == topic }), !outgoing.payload.isEmpty else {
            return nil
        }
        return try? JSONDocument.parse(outgoing.payload).root
    }

    func published(_ topic: String) -> Bool { publications.contains { $0.topic == topic } }
}

extension BridgeState {
    /// A broker message; or, under `matter/<instance>/`, a message of that Matter Server's edge connection.
    mutating func receive(_ topic: String, _ text: String, at now: Date = Date()) -> BridgeEffects {
        if topic.hasPrefix("matter/"), let channel = channels.first(where: { topic.hasPrefix($0 + "/") }) {
            return handleChannelMessage(channel: channel, topic: topic, payload: Array(text.utf8), now: now)
        }
        return handleMessage(topic: topic, payload: Array(text.utf8), now: now)
    }
}
