import Foundation
import TraitBridgeEngine
import TraitBridgeHomeAssistant
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// `TB_BENCH=ha-export make bench`: the state machine alone (no broker) reading one zigbee2mqtt list of N
/// colour-temperature lights, then the tick a second later, with Home Assistant discovery out off, then on
/// (the tick makes every light's config), and Home Assistant's birth message (every config again): the time,
/// and how many configs and bytes, at N = 1 000 and 10 000. Three rounds, the median.
func benchmarkHomeAssistantExport(mappings: String) throws {
    let catalog = try CatalogLoader.load(mappingsDirectory: mappings)
    let tables = try SourceRegistry.standard.loadTables(mappingsDirectory: mappings, catalog: catalog)
    let table = try HomeAssistantExportTable.load(mappingsDirectory: mappings, catalog: catalog)
    let discovery = HomeAssistantDiscovery(
        table: table, catalog: catalog,
        settings: .init(
            discoveryPrefix: "homeassistant", bridgePrefix: "traitbridge", bridgeName: "bench",
            version: "bench"))
    for count in [1_000, 10_000] {
        var list = "["
        for index in 0..<count {
            if index > 0 { list += "," }
            list +=
                #"{"ieee_address":"0x\#(String(format: "%016x", index + 1))","type":"Router","#
                + #""friendly_name":"Light \#(index)","definition":{"vendor":"IKEA","model":"LED1545G12","exposes":["#
                + #"{"type":"light","features":[{"type":"binary","name":"state","property":"state","access":7,"#
                + #""value_on":"ON","value_off":"OFF"},{"type":"numeric","name":"brightness","property":"brightness","#
                + #""access":7,"value_min":0,"value_max":254},{"type":"numeric","name":"color_temp","#
                + #""property":"color_temp","access":7,"value_min":250,"value_max":454}]}]}}"#
        }
        list += "]"
        let payload = Array(list.utf8)
        var rounds: [(off: Double, on: Double, birth: Double, stall: Double, configs: Int, bytes: Int)] = []
        for _ in 0..<3 {
            var timings: [Double] = []
            var configs = 0
            var bytes = 0
            var stall = 0.0
            for export in [nil, HomeAssistantExport(discovery: discovery)] {
                var configuration = BridgeConfiguration(
                    brokerDescription: "bench", sources: [.zigbee2mqtt(locality: .localPeer)])
                configuration.homeAssistant = export
                var state = BridgeState(
                    configuration: configuration, catalog: catalog, tables: tables, graph: try HomeGraph(),
                    now: Date())
                let now = Date()
                _ = state.brokerConnected(now: now)
                // The list, then the runtime's ticks (every 0.1 s) until no config is due: each tick's time is
                // how long the engine is held.
                func ticks(from start: Date) -> (seconds: Double, longest: Double, configs: Int, bytes: Int) {
                    var total = 0.0
                    var longest = 0.0
                    var count = 0
                    var size = 0
                    for step in 0..<2_000 {
                        let began = nanoseconds()
                        let effects = state.tick(now: start.addingTimeInterval(1.1 + Double(step) / 10))
                        let seconds = Double(nanoseconds() - began) / 1e9
                        total += seconds
                        longest = max(longest, seconds)
                        let ours = effects.publications.filter { $0.topic.hasPrefix("homeassistant/device/") }
                        count += ours.count
                        size += ours.reduce(0) { $0 + $1.payload.count }
                        if export == nil || (ours.isEmpty && step > 0) { break }
                    }
                    return (total, longest, count, size)
                }
                let start = nanoseconds()
                _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: payload, now: now)
                let listed = Double(nanoseconds() - start) / 1e9
                let made = ticks(from: now)
                timings.append(listed + made.seconds)
                guard export != nil else { continue }
                configs = made.configs
                bytes = made.bytes
                stall = made.longest
                let later = now.addingTimeInterval(600)
                let birth = nanoseconds()
                _ = state.handleMessage(topic: "homeassistant/status", payload: Array("online".utf8), now: later)
                let again = ticks(from: later.addingTimeInterval(-1.1))
                timings.append(Double(nanoseconds() - birth) / 1e9)
                stall = max(stall, again.longest)
            }
            rounds.append((timings[0], timings[1], timings[2], stall, configs, bytes))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let off = median(rounds.map(\.off))
        let on = median(rounds.map(\.on))
        let birth = median(rounds.map(\.birth))
        let configs = rounds[0].configs
        let bytes = rounds[0].bytes
        let stall = median(rounds.map(\.stall))
        print(
            String(
                format:
                    "ha-export %5d lights: list and ticks %.3f s without, %.3f s with discovery out (+%.1f µs a "
                    + "device); %d configs, %.1f MB (%.0f B each); Home Assistant's birth: every config again in "
                    + "%.3f s of ticks; the longest tick %.1f ms",
                count, off, on, (on - off) / Double(count) * 1e6, configs, Double(bytes) / 1e6,
                Double(bytes) / Double(max(configs, 1)), birth, stall * 1e3))
    }
}
