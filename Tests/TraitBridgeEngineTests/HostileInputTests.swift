import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeStore

/// Everything anyone on a shared broker can publish, sent to every topic family of every source
/// and to the bridge's own topics, through the state machine: nothing may trap, and no device may
/// be lost, renamed or removed by a payload that is not the source's own well-formed removal.
@Suite("Hostile input")
struct HostileInputTests {
    typealias Driver = SourceConformanceTests.Driver

    /// Payloads of every wrong kind, as raw bytes (several are not valid UTF-8 or JSON).
    static let payloads: [[UInt8]] = {
        var list: [[UInt8]] = [
            "1e19", "-1e19", "1e300", "-1e300", "1e400", "-1e400", "inf", "-inf", "nan", "NaN", "Infinity", "-0",
            "9223372036854775808", "-9223372036854775809", "18446744073709551616", "0.1e-400",
            "{}", "[]", "null", "true", "false", "\"x\"", "[{}]", "[1,2,3]", "[null]", "{\"\":{}}",
            "on", "ON", "true,", "{not json", "'single'", "\u{0}", " ", "\"\"",
            "nan,0,0", "inf,inf,inf", "1e400,1e400,1e400",
            "{\"state\":1e400}", "{\"POWER\":1e19}", "{\"id\":1e19,\"src\":1e19}", "{\"method\":\"NotifyStatus\",\"params\":1e400}",
            "{\"src\":\"x\",\"method\":\"NotifyFullStatus\",\"params\":{\"switch:0\":{\"id\":1e400,\"apower\":1e400,\"output\":1e400}}}",
            "{\"id\":\"c\",\"trait\":\"matter.OnOff\",\"command\":\"on\",\"args\":{\"x\":1e400}}",
            "{\"id\":\"c\",\"trait\":\"matter.LevelControl\",\"attribute\":\"currentLevel\",\"value\":1e300}",
            "{\"id\":\"c\",\"trait\":\"matter.ColorControl\",\"command\":\"moveToHueAndSaturation\",\"args\":{\"hue\":1e400,\"saturation\":-1e400}}",
            "{\"id\":\"c\",\"name\":\"\"}", "{\"id\":\"c\",\"room\":1e400}",
        ].map { Array($0.utf8) }
        list.append([])
        list.append([0xFF, 0xFE, 0xC3, 0x28])  // not UTF-8
        list.append(Array("{\"state\":\"\u{FFFD}".utf8) + [0xC0, 0xAF] + Array("\"}".utf8))
        list.append(Array(repeating: UInt8(ascii: "["), count: 100_000))  // deep nesting
        list.append(Array("{\"a\":".utf8) + Array(repeating: UInt8(ascii: "1"), count: 1_000_000) + Array("}".utf8))  // 1 MB number
        list.append(Array(repeating: UInt8(ascii: "x"), count: 1_048_576))
        return list
    }()

    /// Raw tokens put in the place of each value of a well-formed payload: wrong types and numbers
    /// no model value can hold.
    static let substitutes = ["1e400", "-1e400", "1e19", "-1e19", "1e300", "null", "{}", "[]", "true", "\"nan\"", "\"inf\"", "\"1e400\"", "-1"]

    /// Every variant of a JSON payload with one value replaced by each substitute (bounded).
    static func mutations(of payload: String) -> [[UInt8]] {
        guard let document = try? JSONDocument.parse(Array(payload.utf8)) else { return [] }
        var variants: [[UInt8]] = []
        func walk(_ value: JSONValue, _ rebuild: (JSONValue) -> JSONValue) {
            guard variants.count < 2_000 else { return }
            let marker = JSONValue.string("\u{1}HOSTILE\u{1}")
            let text = rebuild(marker).serialized()
            for token in substitutes {
                // A string for a string is another value, not a wrong one (another ieee_address is
                // another device), and so is a string for a list of strings (Home Assistant's one
                // identifier): only wrong kinds and numbers out of range are hostile here.
                if token.hasPrefix("\""), Self.isText(value) { continue }
                variants.append(Array(text.replacingOccurrences(of: "\"\\u0001HOSTILE\\u0001\"", with: token).utf8))
            }
            switch value {
            case .object(let object):
                for member in object.members {
                    walk(member.value) { replacement in
                        var copy = object
                        copy[member.key] = replacement
                        return rebuild(.object(copy))
                    }
                }
            case .array(let elements):
                for index in elements.indices {
                    walk(elements[index]) { replacement in
                        var copy = elements
                        copy[index] = replacement
                        return rebuild(.array(copy))
                    }
                }
            default: break
            }
        }
        walk(document.root.value) { $0 }
        return variants
    }

    static func isText(_ value: JSONValue) -> Bool {
        switch value {
        case .string: true
        case .array(let elements): elements.allSatisfy { if case .string = $0 { true } else { false } }
        default: false
        }
    }

    /// The topics a driver's source reads, plus the bridge's own and a few the source may create
    /// devices from.
    static func topics(_ driver: Driver) -> [String] {
        var topics = driver.discover.map(\.topic) + [driver.online.topic, driver.value.topic, driver.echo.topic, driver.malformed.topic]
        topics += driver.renamed.map(\.topic)
        if let parent = driver.parentOffline { topics.append(parent.topic) }
        topics += [
            "traitbridge/devices/\(driver.id)/set", "traitbridge/devices/nobody/set", "traitbridge/bridge/request/rename",
            "traitbridge/bridge/request/move", "traitbridge/bridge/request/sync", "traitbridge/bridge/request/query",
            "traitbridge/bridge/request/execute/abc", "traitbridge/bridge/request/unknown",
            "shellies/x/relay/0/power", "shellies/x/relay/0", "shellies/x/light/0/status", "shellies/announce", "x/events/rpc",
            "x/status/switch:0", "tasmota/discovery/A4CF12345678/sensors", "tasmota/discovery/0/config",
            "homeassistant/light/z/config", "homeassistant/device/z/config", "zigbee2mqtt/bridge/devices", "zigbee2mqtt/bridge/state",
            "zigbee2mqtt/unknown device", "stat/plug/RESULT", "tele/plug/SENSOR", "tele/plug/STATE", "stat/plug/POWER1",
        ]
        var seen: Set<String> = []
        return topics.filter { seen.insert($0).inserted }
    }

    /// Whether a message is the source's own well-formed removal (an empty retained config).
    static func isRemoval(_ topic: String, _ payload: [UInt8], _ driver: Driver) -> Bool {
        if topic == "zigbee2mqtt/bridge/devices" { return payload == Array("[]".utf8) }  // a whole list that omits them all
        guard payload.isEmpty else { return false }
        return driver.remove?.contains { $0.topic == topic && $0.payload.isEmpty } == true || topic == "tasmota/discovery/0/config"
            || topic.hasPrefix("homeassistant/") && topic.hasSuffix("/config")
    }

    @Test("every hostile payload on every topic: nothing traps, the device keeps its name and room, nothing is removed",
          arguments: SourceConformanceTests.drivers)
    func hostilePayloads(_ driver: Driver) throws {
        var state = try SourceConformanceTests().ready(driver)
        _ = state.receive(driver.online.topic, driver.online.payload)
        _ = state.receive(driver.value.topic, driver.value.payload)
        let id = try DeviceID(driver.id)
        _ = state.receive("traitbridge/bridge/request/move/1", #"{"device":"\#(driver.id)","room":"Attic"}"#)
        _ = state.receive("traitbridge/bridge/request/rename/2", #"{"device":"\#(driver.id)","name":"Kept name"}"#)
        let before = try #require(state.graph.devices[id])
        let room = state.graph.room(of: id)?.name
        #expect(room == "Attic")
        let known = Set(state.graph.devices.keys)

        var sent = 0
        var messages: [(String, [UInt8])] = []
        for topic in Self.topics(driver) {
            for payload in Self.payloads where !Self.isRemoval(topic, payload, driver) { messages.append((topic, payload)) }
        }
        for good in driver.discover + [driver.value, driver.echo, driver.online] {
            for variant in Self.mutations(of: good.payload) where !Self.isRemoval(good.topic, variant, driver) {
                messages.append((good.topic, variant))
            }
        }
        for (topic, payload) in messages {
            let effects = state.handleMessage(topic: topic, payload: payload, now: Date())
            sent += 1
            let removed = effects.storeChanges.compactMap { change -> DeviceID? in
                if case .remove(let gone) = change { return gone }
                return nil
            }
            #expect(!removed.contains { known.contains($0) }, "\(topic) ← \(String(decoding: payload.prefix(80), as: UTF8.self)) removed \(removed): \(String(decoding: payload.prefix(400), as: UTF8.self))")
            #expect(!effects.publications.contains { $0.payload.isEmpty && $0.topic == "traitbridge/devices/\(driver.id)" },
                    "\(topic) ← \(String(decoding: payload.prefix(80), as: UTF8.self)) cleared the device")
            for publication in effects.publications where publication.topic.hasPrefix("traitbridge/devices/") && !publication.payload.isEmpty {
                #expect((try? JSONDocument.parse(publication.payload)) != nil, "\(publication.topic) is valid JSON after \(topic)")
            }
        }
        #expect(sent > 1_000)
        let after = try #require(state.graph.devices[id], "\(driver.name): the device is still there")
        #expect(after.name == "Kept name")
        #expect(before.name == "Kept name")
        #expect(state.graph.room(of: id)?.name == "Attic")
        #expect(known.isSubset(of: Set(state.graph.devices.keys)))
        // The next good message is still taken.
        _ = state.receive(driver.echo.topic, driver.echo.payload)
        _ = state.receive(driver.value.topic, driver.value.payload)
        let at = driver.valueAt
        #expect(after.deviceType(key: at.key) != nil)
        #expect(state.graph.devices[id]?.deviceType(key: at.key)?.trait(.matter(at.trait))?.attributes[at.attribute] == at.value)
    }

    @Test("a zigbee2mqtt device list of the wrong shape removes nothing; a well-formed list that omits a device removes it")
    func zigbee2mqttListShape() throws {
        var state = try EngineFixtures.state()
        _ = state.brokerConnected(now: Date())
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        #expect(state.graph.devices.count == 3)
        for payload in ["{}", "[1]", "[{\"friendly_name\":\"x\"}]", "null", "\"[]\""] {
            let effects = state.receive("zigbee2mqtt/bridge/devices", payload)
            #expect(state.graph.devices.count == 3, "\(payload)")
            #expect(!effects.storeChanges.contains { if case .remove = $0 { true } else { false } }, "\(payload)")
            #expect(effects.logs.contains { $0.metadata["tb.mqtt.topic"] == "zigbee2mqtt/bridge/devices" }, "\(payload) is logged with its topic")
        }
        // A malformed entry for one device keeps it; the list still removes what it omits.
        let payload = #"[{"ieee_address":"0x00158d0001000001"},{"ieee_address":"0x00158d0001000003","friendly_name":"Relay","definition":{"exposes":"x"}}]"#
        _ = state.receive("zigbee2mqtt/bridge/devices", payload)
        #expect(state.graph.devices[EngineFixtures.light] != nil, "named by a malformed entry: kept")
        #expect(state.graph.devices[EngineFixtures.climate] == nil, "omitted by a whole list: removed")
        #expect(state.graph.devices[EngineFixtures.relay] != nil, "listed with a malformed definition: kept as it was")
        #expect(state.graph.devices[EngineFixtures.relay]?.name == "Relay")
    }

    @Test("a Shelly power of 1e19, inf or nan is refused with its topic; the next good value is taken")
    func shellyHugePower() throws {
        var state = try EngineFixtures.state(withShelly: true)
        _ = state.brokerConnected(now: Date())
        _ = state.receive("shellies/shelly1pm-x/relay/0/power", "12.5")
        let id = DeviceID.derived(source: "shelly", nativeID: "shelly1pm-x")
        for payload in ["inf", "-inf", "nan", "1e400"] {
            let effects = state.receive("shellies/shelly1pm-x/relay/0/power", payload)
            #expect(effects.logs.contains { $0.metadata["tb.mqtt.topic"] == "shellies/shelly1pm-x/relay/0/power" }, "\(payload)")
        }
        _ = state.receive("shellies/shelly1pm-x/relay/0/power", "1e19")
        let power = state.graph.devices[id]?.deviceTypes.lazy.compactMap { $0.trait(.matter("ElectricalPowerMeasurement")) }.first
        #expect(power?.attributes["activePower"] == .int(4_611_686_018_427_387_904), "clamped to the maximum: \(String(describing: power))")
        _ = state.receive("shellies/shelly1pm-x/relay/0/power", "7")
        let again = state.graph.devices[id]?.deviceTypes.lazy.compactMap { $0.trait(.matter("ElectricalPowerMeasurement")) }.first
        #expect(again?.attributes["activePower"] == .int(7000))
    }

    @Test("50 000 unique Shelly ids: the per-source limit holds, each refusal is counted on the health topic, logs stay few")
    func shellyFlood() throws {
        var limits = BridgeLimits()
        limits.devicesPerSource = 100
        var state = try EngineFixtures.state(withShelly: true, limits: limits)
        _ = state.brokerConnected(now: Date())
        var logLines = 0
        for index in 0..<50_000 {
            logLines += state.receive("shellies/flood-\(index)/relay/0", "on").logs.filter { $0.metadata["tb.limit"] != nil }.count
        }
        let tick = state.tick(now: Date())
        let health = try #require(tick.last("traitbridge/bridge/health"), "the health topic is published after refusals")
        #expect(health["refused"]?["devicesPerSource"]?.int64 == 49_900)
        #expect(health["devices"]?["shelly"]?.int64 == 100)
        #expect(health["limits"]?["devicesPerSource"]?.int64 == 100)
        #expect(state.graph.devices.count == 100)
        #expect(logLines == 16, "a log line at the first refusal and at each power of two: \(logLines)")
        #expect(state.tick(now: Date()).last("traitbridge/bridge/health") == nil, "published again only when it changed")
    }

    @Test("a message past its size limit is refused and counted; a list may be larger; pending messages stay within their bytes")
    func sizeLimits() throws {
        var limits = BridgeLimits()
        limits.messageBytes = 1_000
        limits.listBytes = 100_000
        limits.pendingBytes = 3_000
        var state = try EngineFixtures.state(limits: limits)
        _ = state.brokerConnected(now: Date())
        let big = String(repeating: "x", count: 2_000)
        let refused = state.receive("zigbee2mqtt/Hall light", #"{"state":"ON","pad":"\#(big)"}"#)
        #expect(refused.logs.contains { $0.metadata["tb.limit"] == "messageBytes" && $0.metadata["tb.mqtt.topic"] == "zigbee2mqtt/Hall light" })
        // The device list is a list: 2 kB passes.
        let padded = String(decoding: EngineFixtures.devicesPayload, as: UTF8.self) + String(repeating: " ", count: 2_000)
        _ = state.receive("zigbee2mqtt/bridge/devices", padded)
        #expect(state.graph.devices.count == 3)
        // Early messages for unknown devices: at most 3 000 bytes kept, the oldest make room.
        for index in 0..<20 { _ = state.receive("zigbee2mqtt/later \(index)", String(repeating: "y", count: 900)) }
        let health = try #require(state.tick(now: Date()).last("traitbridge/bridge/health"))
        #expect((health["pending"]?["bytes"]?.int64 ?? .max) <= 3_000)
        #expect(health["refused"]?["messageBytes"]?.int64 == 1)
        #expect((health["refused"]?["pendingBytes"]?.int64 ?? 0) >= 17)
    }
}

@Suite("Registry and broker agree")
struct LeftoverTests {
    @Test("a retained description of a device the bridge does not know is cleared with its state; known ones and live ones are not")
    func leftovers() throws {
        var state = try EngineFixtures.state()
        _ = state.brokerConnected(now: Date())
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        let description = Array(#"{"types":{}}"#.utf8)
        let leftover = state.handleMessage(topic: "traitbridge/devices/z2m-0xdead", payload: description, now: Date(), isRetained: true)
        #expect(leftover.publications.map(\.topic) == ["traitbridge/devices/z2m-0xdead/state", "traitbridge/devices/z2m-0xdead"])
        #expect(leftover.publications.allSatisfy { $0.payload.isEmpty && $0.isRetained })
        #expect(leftover.logs.contains { $0.metadata["tb.mqtt.topic"] == "traitbridge/devices/z2m-0xdead" })
        let known = state.handleMessage(topic: "traitbridge/devices/\(EngineFixtures.light.rawValue)", payload: description, now: Date(), isRetained: true)
        #expect(known.publications.isEmpty)
        let live = state.handleMessage(topic: "traitbridge/devices/z2m-0xbeef", payload: description, now: Date(), isRetained: false)
        #expect(live.publications.isEmpty, "another client writing there now is not a leftover")
        let cleared = state.handleMessage(topic: "traitbridge/devices/z2m-0xdead", payload: [], now: Date(), isRetained: true)
        #expect(cleared.publications.isEmpty)
        #expect(state.subscriptions.contains(state.ownDescriptionsFilter) == false, "read with No Local, apart from the others")
    }
}

@Suite("Cloud restore, row by row")
struct CloudRestoreTests {
    @Test("an old registry's SYNC entry that is not a device object is skipped with its id; the others come back")
    func badRow() throws {
        var state = try EngineFixtures.state(withCloud: true)
        let good = Array(#"{"id":"plug-1","type":"action.devices.types.OUTLET","traits":["action.devices.traits.OnOff"],"name":{"name":"Plug"},"willReportState":true}"#.utf8)
        let other = Array(#"{"id":"plug-2","type":"action.devices.types.OUTLET","traits":["action.devices.traits.OnOff"],"name":{"name":"Plug two"},"willReportState":true}"#.utf8)
        let effects = state.importLegacyCloud([("plug-1", good), ("broken", Array(#"{"id":"broken","type":"#.utf8)),
                                               ("list", Array("[1]".utf8)), ("plug-2", other)], now: Date())
        let logs = effects.logs
        #expect(state.graph.devices.values.map(\.name).sorted() == ["Plug", "Plug two"])
        #expect(logs.contains { $0.metadata["tb.device"] == "broken" }, "\(logs.map(\.message))")
        #expect(logs.contains { $0.metadata["tb.device"] == "list" })
        let kept = effects.storeChanges.compactMap { change -> String? in
            if case .saveCloudDevice(let origin, _) = change { origin.c2cID } else { nil }
        }
        #expect(kept == ["plug-1", "plug-2"], "kept as typed records")
    }

    @Test("a kept cloud device whose record does not read is skipped with its id; the others come back as imported")
    func badTypedRecord() throws {
        var first = try EngineFixtures.state(withCloud: true)
        let entries = ["plug-1", "plug-2", "plug-3"].map { id in
            let entry = #"{"id":"\#(id)","type":"action.devices.types.OUTLET","#
                + #""traits":["action.devices.traits.OnOff"],"name":{"name":"Plug \#(id)"},"#
                + #""customData":{"hub":7},"willReportState":true}"#
            return (id, Array(entry.utf8))
        }
        var origins: [CloudOriginRecord] = []
        var rows: [DeviceStore.Row] = []
        let effects = first.importLegacyCloud(entries, now: Date())
        for case .saveCloudDevice(let origin, let device) in effects.storeChanges {
            origins.append(origin)
            guard origin.c2cID != "plug-3" else { continue }
            rows.append(DeviceStore.Row(record: device, firstSeen: Date(), lastSeen: Date()))
        }
        #expect(origins.map(\.customData) == Array(repeating: #"{"hub":7}"#, count: 3))
        origins[1].attributes = "[not an object]"
        var state = try EngineFixtures.state(withCloud: true)
        let logs = state.restoreCloud(origins, rows: rows, now: Date())
        let plug = try DeviceID("c2c-plug-1")
        #expect(Array(state.graph.devices.keys) == [plug])
        let restored = try #require(state.graph.devices[plug])
        let imported = try #require(first.graph.devices[plug])
        #expect(restored.sources == imported.sources && restored.name == imported.name)
        #expect(restored.traitAddresses == imported.traitAddresses)
        for address in imported.traitAddresses {
            let (a, b) = (restored.trait(at: address), imported.trait(at: address))
            #expect(a?.attributes == b?.attributes && a?.source == b?.source, "\(address)")
            #expect(a?.connectivity.state == b?.connectivity.state && a?.connectivity.reason == b?.connectivity.reason)
            #expect(a?.connectivity.locality == b?.connectivity.locality)
        }
        #expect(logs.filter { $0.level == .error }.compactMap { $0.metadata["tb.device"] } == ["plug-2", "plug-3"],
                "\(logs.map(\.message))")
    }
}
