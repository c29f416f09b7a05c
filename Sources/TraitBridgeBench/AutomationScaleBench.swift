import Foundation
import TraitBridgeEngine
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// `TB_BENCH=automations make bench`: the cost of one device message with 0, 10, 100 and 1 000
/// automations (each watching its own Home Assistant switch, as `automation add` makes them):
/// a message to a switch no automation watches, and one to a switch one automation watches (it
/// fires: a notification each time). Both must stay flat as automations grow — triggers are
/// indexed by the device they watch, never scanned.
func benchmarkAutomationScale(mappings: String) throws {
    let catalog = try CatalogLoader.load(mappingsDirectory: mappings)
    let tables = try SourceRegistry.standard.loadTables(mappingsDirectory: mappings, catalog: catalog)
    let devices = 1_001
    for automations in [0, 10, 100, 1_000] {
        let configuration = BridgeConfiguration(
            brokerDescription: "bench", sources: [.homeAssistant(locality: .localPeer)])
        var state = BridgeState(
            configuration: configuration, catalog: catalog, tables: tables, graph: try HomeGraph(), now: Date())
        let now = Date()
        _ = state.brokerConnected(now: now)
        for index in 0..<devices {
            let config =
                #"{"~":"ha\#(index)","stat_t":"~/state","cmd_t":"~/set","avty_t":"~/avail","#
                + #""uniq_id":"ha\#(index)_relay","#
                + #""dev":{"ids":["ha\#(index)"],"name":"Switch \#(index)"}}"#
            _ = state.handleMessage(
                topic: "homeassistant/switch/ha\(index)/relay/config", payload: Array(config.utf8), now: now)
            _ = state.handleMessage(topic: "ha\(index)/avail", payload: Array("online".utf8), now: now)
            _ = state.handleMessage(topic: "ha\(index)/state", payload: Array("OFF".utf8), now: now)
        }
        // Device ids as the bridge made them, by their switch's number.
        var ids: [Int: String] = [:]
        for (id, device) in state.graph.devices {
            if let number = Int(device.name.dropFirst("Switch ".count)) { ids[number] = id.rawValue }
        }
        for index in 1...max(1, automations) where automations > 0 {
            guard let id = ids[index] else { continue }
            let definition =
                #"{"id": "a\#(index)", "name": "Automation \#(index)", "#
                + #""triggers": [{"type": "attribute", "device": "\#(id)", "#
                + #""trait": "matter.OnOff", "attribute": "onOff", "changes": true}], "#
                + #""conditions": [{"type": "connectivity", "device": "\#(id)", "state": "online"}], "#
                + #""actions": [{"type": "notify", "message": "switch \#(index) changed"}]}"#
            let effects = state.handleMessage(
                topic: "traitbridge/bridge/request/automation-add/\(index)", payload: Array(definition.utf8), now: now)
            precondition(
                effects.publications.contains { $0.topic.hasSuffix("automation-add/\(index)") && $0.payload.count > 0 })
        }
        var on = false
        measure("message to an unwatched switch, \(automations) automations", iterations: 20_000) {
            on.toggle()
            return state.handleMessage(topic: "ha0/state", payload: Array((on ? "ON" : "OFF").utf8), now: now)
                .publications.count
        }
        guard automations > 0 else { continue }
        measure("message to a watched switch (it fires), \(automations) automations", iterations: 20_000) {
            on.toggle()
            let effects = state.handleMessage(topic: "ha1/state", payload: Array((on ? "ON" : "OFF").utf8), now: now)
            precondition(effects.publications.contains { $0.topic == "traitbridge/notifications/automations" })
            return effects.publications.count
        }
    }
}
