import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

@Suite("Bridge state: the connectivity chain broker → source bridge → device → trait")
struct BridgeStateConnectivityTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func discovered() throws -> BridgeState {
        var state = try EngineFixtures.state()
        _ = state.brokerConnected(now: t0)
        _ = state.receive("zigbee2mqtt/bridge/state", #"{"state":"online"}"#, at: t0)
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: t0)
        return state
    }

    func connectivity(_ state: BridgeState, _ id: DeviceID) -> ConnectivityState? {
        state.graph.devices[id]?.sourceConnectivity.connectivityState
    }

    func reason(_ state: BridgeState, _ id: DeviceID) -> ConnectivityReason? {
        state.graph.devices[id]?.deviceTypes.first?.traits.first?.connectivity.reason
    }

    @Test("availability offline makes every trait offline with the topic as reason, plain and JSON forms")
    func availability() throws {
        var state = try discovered()
        let effects = state.receive("zigbee2mqtt/Hall light/availability", "offline", at: t0 + 1)
        #expect(connectivity(state, EngineFixtures.light) == .offline)
        #expect(
            reason(state, EngineFixtures.light)
                == .availability(topic: "zigbee2mqtt/Hall light/availability", isOnline: false))
        let json = try #require(effects.last("traitbridge/devices/z2m-0x00158d0001000001/state"))
        #expect(json[path: "types.light.traits[\"matter.OnOff\"].connectivityState"]?.string == "offline")
        #expect(
            json[path: "types.light.traits[\"matter.OnOff\"].reason"]?.string
                == "availability topic zigbee2mqtt/Hall light/availability said offline")
        _ = state.receive("zigbee2mqtt/Hall light/availability", #"{"state":"online"}"#, at: t0 + 2)
        #expect(connectivity(state, EngineFixtures.light) == .online)
        // The empty retained payload left after a rename is ignored.
        #expect(state.receive("zigbee2mqtt/Hall light/availability", "", at: t0 + 3).publications.isEmpty)
        #expect(connectivity(state, EngineFixtures.light) == .online)
    }

    @Test("bridge offline then online restores each device's own state, never forcing children online")
    func parentRestoresChildren() throws {
        var state = try discovered()
        _ = state.receive("zigbee2mqtt/Hall light/availability", "online", at: t0 + 1)
        _ = state.receive("zigbee2mqtt/Relay/availability", "offline", at: t0 + 1)
        _ = state.receive("zigbee2mqtt/bridge/state", #"{"state":"offline"}"#, at: t0 + 2)
        for id in [EngineFixtures.light, EngineFixtures.relay, EngineFixtures.climate] {
            #expect(connectivity(state, id) == .offline)
            #expect(reason(state, id) == .sourceBridgeOffline(topic: "zigbee2mqtt/bridge/state"))
        }
        _ = state.receive("zigbee2mqtt/bridge/state", "online", at: t0 + 3)
        #expect(connectivity(state, EngineFixtures.light) == .online)
        #expect(connectivity(state, EngineFixtures.relay) == .offline, "its own last state was offline")
        #expect(connectivity(state, EngineFixtures.climate) == .unknown, "never heard from: still unknown")
    }

    @Test("broker loss makes every trait unknown/unspecified with the reason; reconnect republishes everything")
    func brokerLoss() throws {
        var state = try discovered()
        _ = state.receive("zigbee2mqtt/Hall light/availability", "online", at: t0 + 1)
        let lost = state.brokerDisconnected(now: t0 + 2, reason: "connection lost")
        #expect(lost.publications.isEmpty, "nothing can be sent without a broker")
        let light = try #require(state.graph.devices[EngineFixtures.light])
        #expect(
            light.sourceConnectivity
                == SourceConnectivity(connectivityState: .unknown, dataSourceLocality: .unspecified))
        #expect(reason(state, EngineFixtures.light) == .brokerDisconnected(broker: "mqtt://127.0.0.1:1883"))
        let back = state.brokerConnected(now: t0 + 5)
        #expect(back.publications.first?.topic == "traitbridge/bridge/state")
        #expect(back.publications.first?.payload == Array("online".utf8))
        #expect(back.publications.filter { $0.topic.hasSuffix("/state") && $0.topic.contains("/devices/") }.count == 3)
        #expect(
            back.publications.filter { $0.topic.hasPrefix("traitbridge/devices/") && !$0.topic.hasSuffix("/state") }
                .count == 3, "descriptions too")
        #expect(connectivity(state, EngineFixtures.light) == .online, "the device's own availability is restored")
    }

    @Test(
        "no availability topic: data within the budget is online; silence past it is unknown, the budget the reason"
    )
    func staleness() throws {
        var state = try discovered()
        _ = state.receive("zigbee2mqtt/Hall light", #"{"state":"ON"}"#, at: t0)
        #expect(connectivity(state, EngineFixtures.light) == .online)
        #expect(state.tick(now: t0 + 599).publications.allSatisfy { $0.topic == "traitbridge/bridge/health" })
        let stale = state.tick(now: t0 + 601)
        #expect(connectivity(state, EngineFixtures.light) == .unknown)
        #expect(reason(state, EngineFixtures.light) == .stale(lastSeen: t0, budgetSeconds: 600))
        #expect(stale.published("traitbridge/devices/z2m-0x00158d0001000001/state"))
        // The battery sensor has the 25 h budget.
        _ = state.receive("zigbee2mqtt/Climate", #"{"temperature":20}"#, at: t0)
        _ = state.tick(now: t0 + 3600 * 24)
        #expect(connectivity(state, EngineFixtures.climate) == .online)
        _ = state.tick(now: t0 + 3600 * 25 + 1)
        #expect(connectivity(state, EngineFixtures.climate) == .unknown)
    }

    @Test("a trait's since is when its state changed, not the last message")
    func since() throws {
        var state = try discovered()
        _ = state.receive("zigbee2mqtt/Hall light/availability", "online", at: t0 + 1)
        _ = state.receive("zigbee2mqtt/Hall light", #"{"state":"ON"}"#, at: t0 + 50)
        let trait = state.graph.devices[EngineFixtures.light]?.deviceTypes.first?.traits.first
        #expect(trait?.connectivity.since == t0 + 1)
    }
}
