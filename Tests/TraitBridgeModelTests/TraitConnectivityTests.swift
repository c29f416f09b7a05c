import FoundationEssentials
import Testing
import TraitBridgeModel

@Suite("Trait connectivity with reasons")
struct TraitConnectivityTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("a new trait is unknown/unspecified because nothing was heard")
    func initial() {
        let connectivity = TraitConnectivity.initial
        #expect(connectivity.sourceConnectivity == .unknown)
        #expect(connectivity.reason == .neverHeard)
        #expect(connectivity.reason?.description == "nothing heard yet")
    }

    @Test("since changes only when the state or locality changes")
    func sinceTracksChanges() {
        var connectivity = TraitConnectivity.initial
        let topic = "zigbee2mqtt/lamp/availability"
        connectivity.update(state: .online, locality: .localPeer, reason: .availability(topic: topic, isOnline: true), at: t0)
        #expect(connectivity.since == t0)
        connectivity.update(state: .online, locality: .localPeer, reason: .messageReceived(topic: "zigbee2mqtt/lamp"), at: t0 + 60)
        #expect(connectivity.since == t0, "still online since t0")
        #expect(connectivity.reason?.code == "messageReceived")
        connectivity.update(state: .offline, locality: .localPeer, reason: .availability(topic: topic, isOnline: false), at: t0 + 120)
        #expect(connectivity.since == t0 + 120)
        #expect(connectivity.reason?.description == "availability topic zigbee2mqtt/lamp/availability said offline")
    }

    @Test("reasons say which link of the chain decided")
    func reasonTexts() {
        #expect(ConnectivityReason.brokerDisconnected(broker: "mqtt://127.0.0.1:1883").description == "broker mqtt://127.0.0.1:1883 disconnected")
        #expect(ConnectivityReason.sourceBridgeOffline(topic: "zigbee2mqtt/bridge/state").description == "zigbee2mqtt/bridge/state said offline")
        #expect(ConnectivityReason.stale(lastSeen: t0, budgetSeconds: 90_000).description == "no message since 2023-11-14T22:13:20Z, budget 25 h")
        #expect(ConnectivityReason.cloudReported(isOnline: false, status: "OFFLINE", errorCode: "deviceOffline").description
            == "QUERY said online:false status OFFLINE errorCode deviceOffline")
    }
}
