import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources

/// The conformance suite's situations after discovery: availability, a parent going away, messages early or
/// malformed, subscriptions, commands and a stable id.
extension SourceConformanceTests {
    @Test("availability online → offline (the topic is the reason) → online", arguments: drivers)
    func availability(_ driver: Driver) throws {
        var state = try ready(driver)
        _ = state.receive(driver.online.topic, driver.online.payload)
        #expect(try connectivity(state, driver).0 == .online)
        _ = state.receive(driver.offline.topic, driver.offline.payload)
        let (offline, reason) = try connectivity(state, driver)
        #expect(offline == .offline)
        #expect(reason.contains(driver.offlineReason ?? driver.offline.topic), "\(reason)")
        _ = state.receive(driver.online.topic, driver.online.payload)
        #expect(try connectivity(state, driver).0 == .online)
    }

    @Test("a parent going away (the broker; zigbee2mqtt's bridge) and coming back", arguments: drivers)
    func parent(_ driver: Driver) throws {
        var state = try ready(driver)
        _ = state.receive(driver.online.topic, driver.online.payload)
        _ = state.brokerDisconnected(now: Date(), reason: "test")
        let (lost, reason) = try connectivity(state, driver)
        #expect(lost == .unknown)
        #expect(reason.contains("broker"), "\(reason)")
        _ = state.brokerConnected(now: Date())
        #expect(try connectivity(state, driver).0 == .online)
        if let down = driver.parentOffline, let up = driver.parentOnline {
            _ = state.receive(down.topic, down.payload)
            let (parentDown, parentReason) = try connectivity(state, driver)
            #expect(parentDown == .offline)
            #expect(parentReason.contains(driver.parentReason ?? down.topic), "\(parentReason)")
            _ = state.receive(up.topic, up.payload)
            #expect(try connectivity(state, driver).0 == .online, "its own last state comes back")
        }
    }

    @Test(
        "a message that arrives before the device is known is applied when it is",
        arguments: drivers.filter { $0.early != nil })
    func earlyMessage(_ driver: Driver) throws {
        let early = try #require(driver.early)
        var state = try driver.makeState()
        _ = state.brokerConnected(now: Date())
        _ = state.receive(early.message.topic, early.message.payload)
        for message in driver.discover { _ = state.receive(message.topic, message.payload) }
        #expect(early.check(try device(state, driver)))
    }

    @Test("a device discovered before its state is asked for it", arguments: drivers.filter { $0.stateRequest != nil })
    func stateRequested(_ driver: Driver) throws {
        var state = try driver.makeState()
        _ = state.brokerConnected(now: Date())
        var published: [String] = []
        for message in driver.discover {
            published += state.receive(message.topic, message.payload).publications.map(\.topic)
        }
        #expect(published.contains(try #require(driver.stateRequest)))
    }

    @Test(
        "a device discovered later has its own topics subscribed then (their retained state comes with it)",
        arguments: drivers.filter { $0.subscription != nil })
    func subscribedAtDiscovery(_ driver: Driver) throws {
        var state = try driver.makeState()
        _ = state.brokerConnected(now: Date())
        let topic = try #require(driver.subscription)
        #expect(!state.subscriptions.contains(topic))
        var subscribed: [String] = []
        for message in driver.discover { subscribed += state.receive(message.topic, message.payload).subscriptions }
        #expect(subscribed.contains(topic))
        _ = state.receive(driver.value.topic, driver.value.payload)
        let at = driver.valueAt
        #expect(
            try device(state, driver).deviceType(key: at.key)?.trait(.matter(at.trait))?.attributes[at.attribute]
                == at.value)
    }

    @Test(
        "a malformed payload is refused alone, with the topic in the log; the next good one is taken",
        arguments: drivers)
    func malformed(_ driver: Driver) throws {
        var state = try ready(driver)
        let before = state.graph
        let effects = state.receive(driver.malformed.topic, driver.malformed.payload)
        #expect(state.graph == before)
        #expect(effects.logs.contains { $0.metadata["tb.mqtt.topic"] == driver.malformed.topic }, "\(effects.logs)")
        _ = state.receive(driver.value.topic, driver.value.payload)
        let at = driver.valueAt
        #expect(
            try device(state, driver).deviceType(key: at.key)?.trait(.matter(at.trait))?.attributes[at.attribute]
                == at.value)
    }

    @Test(
        "a unified command goes out on the source's own topic and the device's answer confirms it", arguments: drivers)
    func commandRoundTrip(_ driver: Driver) throws {
        var state = try ready(driver)
        _ = state.receive(driver.value.topic, driver.value.payload)
        let sent = state.receive("traitbridge/devices/\(driver.id)/set", driver.command)
        #expect(sent.published(driver.commandTopic), "\(sent.publications.map(\.topic)) \(sent.logs)")
        let answer = state.receive(driver.echo.topic, driver.echo.payload)
        #expect(answer.last("traitbridge/devices/\(driver.id)/set/result")?["status"]?.string == "confirmed")
    }

    @Test(
        "the id is stable: a fresh bridge, and the device under another name, topic or prefix, give the same id",
        arguments: drivers)
    func stableID(_ driver: Driver) throws {
        let first = try ready(driver)
        var second = try driver.makeState()
        _ = second.brokerConnected(now: Date())
        for message in driver.renamed { _ = second.receive(message.topic, message.payload) }
        #expect(Set(first.graph.devices.keys) == Set(second.graph.devices.keys))
        #expect(second.graph.devices[try DeviceID(driver.id)] != nil)
    }
}
