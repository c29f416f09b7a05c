import Foundation
import TraitBridgeCloud
import TraitBridgeEngine
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources
import TraitBridgeStore

/// `TB_BENCH=discovery make bench`: the state machine alone (no broker) taking a SYNC of N cloud
/// devices, then N Home Assistant discovery devices (a switch each, with availability and a
/// state), then N zigbee2mqtt devices in one device list, at N = 1000, 2000, 4000 and 8000: the cost per device must stay flat
/// (#14 measured 2 000 → 8 000 HA devices going from 1.1 s to 12.1 s through `serve`).
func benchmarkDiscoveryScale(mappings: String) throws {
    let catalog = try CatalogLoader.load(mappingsDirectory: mappings)
    let tables = try SourceRegistry.standard.loadTables(mappingsDirectory: mappings, catalog: catalog)
    let cloud = try GoogleC2CTable.load(mappingsDirectory: mappings, catalog: catalog)
    for count in [1_000, 2_000, 4_000, 8_000] {
        let configuration = BridgeConfiguration(
            brokerDescription: "bench",
            sources: [.zigbee2mqtt(locality: .localPeer), .homeAssistant(locality: .localPeer)])
        var state = BridgeState(
            configuration: configuration, catalog: catalog, tables: tables, graph: try HomeGraph(), cloud: cloud,
            now: Date())
        _ = state.brokerConnected(now: Date())
        let sync = generatedSync(count: count)
        let syncStart = nanoseconds()
        _ = state.handleMessage(topic: "traitbridge/bridge/request/sync-import/bench", payload: sync, now: Date())
        let syncSeconds = Double(nanoseconds() - syncStart) / 1e9
        let start = nanoseconds()
        for index in 0..<count {
            let config =
                #"{"~":"ha\#(index)","stat_t":"~/state","cmd_t":"~/set","avty_t":"~/avail","uniq_id":"ha\#(index)_relay","#
                + #""dev":{"ids":["ha\#(index)"],"name":"Switch \#(index)"}}"#
            _ = state.handleMessage(
                topic: "homeassistant/switch/ha\(index)/relay/config", payload: Array(config.utf8), now: Date())
            _ = state.handleMessage(topic: "ha\(index)/avail", payload: Array("online".utf8), now: Date())
            _ = state.handleMessage(topic: "ha\(index)/state", payload: Array("ON".utf8), now: Date())
        }
        let homeAssistantDone = nanoseconds()
        var list = "["
        for index in 0..<count {
            if index > 0 { list += "," }
            list +=
                #"{"ieee_address":"0x\#(String(format: "%016x", index + 1))","type":"Router","friendly_name":"Plug \#(index)","#
                + #""definition":{"exposes":[{"type":"switch","features":[{"type":"binary","name":"state","property":"state","#
                + #""access":7,"value_on":"ON","value_off":"OFF"}]}]}}"#
        }
        list += "]"
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: Array(list.utf8), now: Date())
        let done = nanoseconds()
        let perHA = Double(homeAssistantDone - start) / Double(count) / 1_000
        let perZ2M = Double(done - homeAssistantDone) / Double(count) / 1_000
        print(
            "discovery \(String(count).padding(toLength: 5, withPad: " ", startingAt: 0)) devices: "
                + String(
                    format:
                        "SYNC %5.2f s, then HA %6.1f µs/device (%5.2f s), then zigbee2mqtt %6.1f µs/device (%5.2f s); %d in the graph",
                    syncSeconds, perHA, Double(homeAssistantDone - start) / 1e9, perZ2M,
                    Double(done - homeAssistantDone) / 1e9,
                    state.graph.devices.count))
    }
}

/// `TB_BENCH=z2mlist`: where a cold start's memory goes — one zigbee2mqtt list of N devices into
/// an empty state machine: peak RSS before, after the event, and the bytes the event's effects hold.
/// `TB_LIST=<file>` takes that list instead (the scale script's, dumped), run three times (`TB_RUNS`).
func benchmarkZigbee2MQTTList(mappings: String) throws {
    let catalog = try CatalogLoader.load(mappingsDirectory: mappings)
    let tables = try SourceRegistry.standard.loadTables(mappingsDirectory: mappings, catalog: catalog)
    if let path = ProcessInfo.processInfo.environment["TB_LIST"] {
        var list = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let runs = ProcessInfo.processInfo.environment["TB_RUNS"].flatMap { Int($0) } ?? 3
        for _ in 0..<max(1, runs) {
            var state = BridgeState(
                configuration: BridgeConfiguration(
                    brokerDescription: "bench", sources: [.zigbee2mqtt(locality: .localPeer)]),
                catalog: catalog, tables: tables, graph: try HomeGraph(), now: Date())
            _ = state.brokerConnected(now: Date())
            let before = peakRSSMegabytes()
            let heapBefore = heapInUseMegabytes()
            let start = ContinuousClock.now
            var effects = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: list, now: Date())
            if ProcessInfo.processInfo.environment["TB_HOLD"] != nil { list = [] }
            let elapsed = ContinuousClock.now - start
            let heapWithEffects = heapInUseMegabytes()
            let published = effects.publications.reduce(0) { $0 + $1.payload.count }
            var attributeTexts = 0
            var identities: Set<Int> = []
            for case .upsert(let record) in effects.storeChanges {
                for type in record.types {
                    for trait in type.traits {
                        attributeTexts += trait.attributes.utf8.count
                        _ = trait.attributes.utf8.withContiguousStorageIfAvailable {
                            identities.insert(Int(bitPattern: $0.baseAddress))
                        }
                    }
                }
            }
            let publications = effects.publications.count
            let changes = effects.storeChanges.count
            effects = BridgeEffects()
            withExtendedLifetime(effects) {}  // the list's effects end here, not with the loop body: TB_HOLD's
            // heap snapshot must see the state alone (they had stayed alive to the end, 6 MB of 17 at 2 000 devices)
            print(
                "\(path) (\(list.count / 1024) KB): \(elapsed) for \(state.graph.devices.count) devices; peak RSS \(before) → "
                    + "\(peakRSSMegabytes()) MB; heap in use \(heapBefore) → \(heapWithEffects) MB with the effects, "
                    + "\(heapInUseMegabytes()) MB without; \(publications) publications (\(published / 1024) KB), "
                    + "\(changes) registry changes (attribute texts \(attributeTexts / 1024) KB, "
                    + "\(identities.count) buffers)"
            )
            if ProcessInfo.processInfo.environment["TB_HOLD"] != nil {
                withExtendedLifetime(state) { exit(0) }  // for a heap profiler's last snapshot: the state alone
            }
        }
        return
    }
    for count in [1_000, 5_000, 10_000] {
        var state = BridgeState(
            configuration: BridgeConfiguration(
                brokerDescription: "bench", sources: [.zigbee2mqtt(locality: .localPeer)]),
            catalog: catalog, tables: tables, graph: try HomeGraph(), now: Date())
        _ = state.brokerConnected(now: Date())
        var list = "["
        for index in 0..<count {
            if index > 0 { list += "," }
            list +=
                #"{"ieee_address":"0x\#(String(format: "%016x", index + 1))","type":"Router","friendly_name":"Light \#(index)","#
                + #""definition":{"exposes":[{"type":"light","features":[{"type":"binary","name":"state","property":"state","#
                + #""access":7,"value_on":"ON","value_off":"OFF"},{"type":"numeric","name":"brightness","property":"brightness","#
                + #""access":7,"value_min":0,"value_max":254},{"type":"numeric","name":"color_temp","property":"color_temp","#
                + #""access":7,"value_min":150,"value_max":500}]},{"type":"numeric","name":"linkquality","property":"linkquality","access":1}]}}"#
        }
        list += "]"
        let before = peakRSSMegabytes()
        let effects = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: Array(list.utf8), now: Date())
        let published = effects.publications.reduce(0) { $0 + $1.payload.count }
        let stored = effects.storeChanges.reduce(0) { total, change in
            if case .upsert(let record) = change { return total + record.types.reduce(0) { $0 + $1.traits.count } }
            return total
        }
        print(
            "z2m list \(count): list \(list.utf8.count / 1024) KB; peak RSS \(before) → \(peakRSSMegabytes()) MB; "
                + "the event holds \(effects.publications.count) publications (\(published / 1024) KB) and "
                + "\(effects.storeChanges.count) registry changes (\(stored) traits)")
    }
}

/// `TB_BENCH=ha TB_N=<n>`: the scale script's Home Assistant devices (a config, an availability and
/// a state per plug, as `../shared/bench/scale` publishes them) into one state machine, for a
/// profile of that cold start without the broker (`valgrind --tool=callgrind`).
func benchmarkHomeAssistantDiscovery(mappings: String) throws {
    let catalog = try CatalogLoader.load(mappingsDirectory: mappings)
    let tables = try SourceRegistry.standard.loadTables(mappingsDirectory: mappings, catalog: catalog)
    let count = Int(ProcessInfo.processInfo.environment["TB_N"] ?? "") ?? 2_000
    let configuration = BridgeConfiguration(
        brokerDescription: "bench",
        sources: [.zigbee2mqtt(locality: .localPeer), .homeAssistant(locality: .localPeer)])
    var state = BridgeState(
        configuration: configuration, catalog: catalog, tables: tables, graph: try HomeGraph(), now: Date())
    _ = state.brokerConnected(now: Date())
    var messages: [(String, [UInt8])] = []
    for index in 0..<count {
        let id = "scale_plug_" + String(format: "%05d", index)
        let base = "scale/" + id
        let config =
            #"{"name": null, "unique_id": "\#(id)", "state_topic": "\#(base)/state", "command_topic": "\#(base)/set", "#
            + #""availability_topic": "\#(base)/avail", "device": {"identifiers": ["\#(id)"], "#
            + #""name": "HA plug \#(String(format: "%05d", index))", "manufacturer": "Scale", "model": "P1"}}"#
        messages.append(("homeassistant/switch/\(id)/config", Array(config.utf8)))
        messages.append(("\(base)/avail", Array("online".utf8)))
        messages.append(("\(base)/state", Array("ON".utf8)))
    }
    let start = nanoseconds()
    var publications = 0
    for (topic, payload) in messages {
        publications += state.handleMessage(topic: topic, payload: payload, now: Date()).publications.count
    }
    let seconds = Double(nanoseconds() - start) / 1e9
    print(
        String(
            format: "HA discovery: %d devices in %.3f s (%.1f µs per message), %d publications, %d in the graph",
            count, seconds, seconds * 1e6 / Double(messages.count), publications, state.graph.devices.count))
}
