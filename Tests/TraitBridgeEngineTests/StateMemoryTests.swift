import Foundation
import Testing
import TraitBridgeModel
import TraitBridgeSources

@testable import TraitBridgeEngine

/// What the engine keeps per device and between messages stays small (the 10 000-device memory goal,
/// issue #14): the last published state as a hash, not its bytes; no room left over from a long list.
@Suite("What the engine keeps between messages")
struct StateMemoryTests {
    /// The fixtures' state, connected, its zigbee2mqtt bridge online.
    static func connected(at now: Date = Date()) throws -> BridgeState {
        var state = try EngineFixtures.state()
        _ = state.brokerConnected(now: now)
        _ = state.receive("zigbee2mqtt/bridge/state", "online", at: now)
        return state
    }

    @Test("a 300-device list leaves no room for 300 events behind; every device is there")
    func longListLeavesNoRoom() throws {
        var state = try Self.connected()
        let effects = state.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: SlicedEffectsTests.list(300), now: Date())
        #expect(effects.storeChanges.count == 300)
        #expect(state.graph.devices.count == 300)
        let bound = SourceIngress.eventBufferCapacity
        #expect(state.sources.keptEventCapacity <= bound, "\(state.sources.keptEventCapacity)")
        // A small message still reuses the buffer it leaves.
        _ = state.receive("zigbee2mqtt/Light 1", #"{"state":"ON","brightness":20}"#)
        #expect(state.sources.keptEventCapacity > 0 && state.sources.keptEventCapacity <= bound)
    }

    @Test("the state is published when its bytes change and only then, compared by hash")
    func publishedOnlyOnChange() throws {
        var state = try Self.connected()
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: SlicedEffectsTests.list(2), now: Date())
        let stateTopic = "traitbridge/devices/\(try #require(state.graph.devices.keys.sorted().first))/state"
        let now = Date()  // one time for every message: the state carries its last update
        func statesPublished(_ payload: String) -> [String] {
            state.receive("zigbee2mqtt/Light 0", payload, at: now).publications.filter { $0.topic == stateTopic }
                .map { String(decoding: $0.payload, as: UTF8.self) }
        }
        let first = statesPublished(#"{"state":"ON","brightness":20}"#)
        #expect(first.count == 1 && first.first?.contains(#""currentLevel":20"#) == true)
        #expect(statesPublished(#"{"state":"ON","brightness":20}"#).isEmpty, "the same values: the same bytes")
        let changed = statesPublished(#"{"state":"ON","brightness":21}"#)
        #expect(changed.count == 1 && changed.first?.contains(#""currentLevel":21"#) == true)
        let again = statesPublished(#"{"state":"ON","brightness":20}"#)
        #expect(again.count == 1 && again == first, "back to the first bytes: published again")
        let id = try #require(state.graph.devices.keys.sorted().first)
        #expect(state.published[id]?.publishedState == DeviceRuntime.hash(Array(first[0].utf8)))
    }

    @Test("a large list is let go once its plug-in has read it, before its devices are described")
    func listLetGo() throws {
        let list = SlicedEffectsTests.list(300)
        #expect(list.count >= SourceIngress.releasedPayloadBytes)
        for mayRelease in [true, false] {
            var state = try Self.connected()
            let topic = "zigbee2mqtt/bridge/devices"
            let index = try #require(state.sources.allPlugins.firstIndex { $0.carriesList(topic) })
            var payload = list
            var effects = BridgeEffects()
            state.deliver(
                to: index, topic: topic, payload: &payload, mayRelease: mayRelease, isRetained: false, now: Date(),
                effects: &effects)
            #expect(state.graph.devices.count == 300)
            #expect(payload.isEmpty == mayRelease, "let go only when no other plug-in reads it after")
        }
    }

    @Test("a large message kept until its device is known is not let go: it is handled later, whole")
    func keptPayloadStays() throws {
        let now = Date()
        var state = try Self.connected(at: now)
        let padding = String(repeating: "x", count: SourceIngress.releasedPayloadBytes)
        let early = #"{"state":"ON","brightness":99,"note":"\#(padding)"}"#
        let topic = "zigbee2mqtt/Light 0"
        let index = try #require(state.sources.allPlugins.firstIndex { $0.claims(topic) })
        var payload = Array(early.utf8)
        var effects = BridgeEffects()
        state.deliver(
            to: index, topic: topic, payload: &payload, mayRelease: true, isRetained: false, now: now, effects: &effects
        )
        #expect(payload.count == early.utf8.count, "kept for later: still the caller's")
        let listed = state.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: SlicedEffectsTests.list(1), now: now)
        let published = listed.publications.filter { $0.topic.hasSuffix("/state") }
            .map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(published.contains { $0.contains(#""currentLevel":99"#) }, "the kept message, replayed whole")
    }
}
