import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// The Matter Server's protocol as the plug-in speaks it, from the server's own message shapes
/// (server info, `start_listening`'s answer, `attribute_updated`, `node_updated`, `node_removed`,
/// command answers): no server, no engine. Live updates are covered here; the real server
/// (MatterServerTests) never changes its imported test nodes.
@Suite("Matter plug-in", .enabled(if: SourceFixtures.corpus != nil, "../shared/corpus is not present"))
struct MatterPluginTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func plugin() throws -> MatterPlugin {
        MatterPlugin(source: MatterSource(catalog: try SourceFixtures.catalog()))
    }

    static func nodeText(_ file: String) throws -> String {
        try String(contentsOfFile: SourceFixtures.corpus! + "/matter/nodes/" + file, encoding: .utf8)
    }

    static func receive(_ plugin: inout MatterPlugin, _ kind: String, _ text: String) -> [SourceEvent] {
        var events: [SourceEvent] = []
        plugin.receive(
            SourceMessage(topic: "matter/default/" + kind, payload: Array(text.utf8), now: now), into: &events)
        return events
    }

    /// A connected plug-in that has listed the FRITZ! bridge (node 1) and the Inovelli dimmer (197).
    static func listening() throws -> (MatterPlugin, [SourceEvent]) {
        var plugin = try plugin()
        _ = receive(&plugin, "server", #"{"connected":true,"url":"ws://127.0.0.1:5580/ws"}"#)
        let info = receive(&plugin, "message", #"{"fabric_id":1,"schema_version":11,"min_supported_schema_version":9}"#)
        let start = try #require(published(info).first)
        #expect(start.contains(#""command":"start_listening""#))
        let id = try #require(start.split(separator: "\"").dropFirst(3).first)
        let nodes = try "[" + nodeText("fritz_bridge.json") + "," + nodeText("inovelli_vtm31.json") + "]"
        let events = receive(&plugin, "message", #"{"message_id":"\#(id)","result":\#(nodes)}"#)
        return (plugin, events)
    }

    static func published(_ events: [SourceEvent]) -> [String] {
        events.compactMap {
            if case .publish(let message) = $0 { String(decoding: message.payload, as: UTF8.self) } else { nil }
        }
    }

    static func availability(_ events: [SourceEvent]) -> [String: (Bool?, String?)] {
        var found: [String: (Bool?, String?)] = [:]
        for case .availability(let reference, let isOnline, let origin) in events {
            found[reference.nativeID] = (isOnline, origin)
        }
        return found
    }

    @Test("start_listening: the nodes' devices, values and availability, then the server is the source bridge")
    func startListening() throws {
        let (plugin, events) = try Self.listening()
        let described = events.compactMap {
            if case .described(let device) = $0 { device.device.id.rawValue } else { nil }
        }
        #expect(Set(described) == ["matter-1-42", "matter-197"])
        #expect(plugin.deviceCount == 2)
        let availability = Self.availability(events)
        #expect(availability["1/42"]?.0 == false)
        #expect(availability["1/42"]?.1 == "Matter node 1 endpoint 42 (Reachable)")
        #expect(availability["197"]?.0 == true)
        #expect(
            events.contains {
                if case .sourceAvailability(true, "Matter Server ws://127.0.0.1:5580/ws") = $0 { true } else { false }
            })
    }

    @Test("a TraitBridge Matter bridge's node is not imported: its devices are a bridge's own")
    func ownBridgeSkipped() throws {
        var plugin = try Self.plugin()
        _ = Self.receive(&plugin, "server", #"{"connected":true,"url":"ws://127.0.0.1:5580/ws"}"#)
        let info = Self.receive(
            &plugin, "message", #"{"fabric_id":1,"schema_version":11,"min_supported_schema_version":9}"#)
        let start = try #require(Self.published(info).first)
        let id = try #require(start.split(separator: "\"").dropFirst(3).first)
        var bridge = try #require(
            try JSONSerialization.jsonObject(with: Data(Self.nodeText("fritz_bridge.json").utf8)) as? [String: Any])
        var attributes = try #require(bridge["attributes"] as? [String: Any])
        attributes["0/40/18"] = "TRAITBRIDGE-0123456789abcdef"
        bridge["attributes"] = attributes
        let ours = String(decoding: try JSONSerialization.data(withJSONObject: bridge), as: UTF8.self)
        let nodes = try "[" + ours + "," + Self.nodeText("inovelli_vtm31.json") + "]"
        let events = Self.receive(&plugin, "message", #"{"message_id":"\#(id)","result":\#(nodes)}"#)
        let described = events.compactMap {
            if case .described(let device) = $0 { device.device.id.rawValue } else { nil }
        }
        #expect(described == ["matter-197"], "only the dimmer: \(described)")
    }

    @Test("nodes past the device bound are refused, saying so; the nodes before them stay")
    func deviceBound() throws {
        var plugin = try Self.plugin()
        var events: [SourceEvent] = []
        for id in 1...3 {
            let node =
                #"{"node_id":\#(id),"available":true,"attributes":{"0/29/0":[{"0":22,"1":1}],"#
                + #""1/29/0":[{"0":256,"1":3}],"1/29/1":[3,6,29],"1/6/0":true}}"#
            plugin.receive(
                SourceMessage(
                    topic: "matter/default/message", payload: Array(#"{"event":"node_added","data":\#(node)}"#.utf8),
                    now: Self.now, deviceLimit: 2),
                into: &events)
        }
        #expect(plugin.deviceCount == 2)
        let refused = events.compactMap { if case .refusedDevice(let what) = $0 { what } else { nil } }
        #expect(refused.count == 1 && refused[0].contains("Matter node 3"), "\(refused)")
    }

    @Test("a node list of a megabyte is read one node at a time, with the same outcome")
    func largeList() throws {
        var plugin = try Self.plugin()
        _ = Self.receive(&plugin, "server", #"{"connected":true,"url":"ws://h/ws"}"#)
        let info = Self.receive(&plugin, "message", #"{"schema_version":11}"#)
        let start = try #require(Self.published(info).first)
        let id = try #require(start.split(separator: "\"").dropFirst(3).first)
        let dimmer = try Self.nodeText("inovelli_vtm31.json")
        let nodes = (1...40).map {
            dimmer.replacingOccurrences(of: #""node_id": 197"#, with: #""node_id": \#(1000 + $0)"#)
        }
        // Pretty-printed, as the server sends it, with the list before the id.
        let text = "{\n  \"result\": [\n" + nodes.joined(separator: ",\n") + "\n],\n  \"message_id\": \"\(id)\"\n}"
        #expect(text.utf8.count > 1 << 20)
        let events = Self.receive(&plugin, "message", text)
        #expect(plugin.deviceCount == 40)
        #expect(events.contains { if case .sourceAvailability(true, _) = $0 { true } else { false } })
        let described = events.filter { if case .described = $0 { true } else { false } }
        #expect(described.count == 40)
    }

    @Test("a server whose schema TraitBridge does not speak is refused plainly; nothing is asked of it")
    func schemaRefused() throws {
        var plugin = try Self.plugin()
        _ = Self.receive(&plugin, "server", #"{"connected":true,"url":"ws://h/ws"}"#)
        let events = Self.receive(&plugin, "message", #"{"schema_version":5,"min_supported_schema_version":4}"#)
        #expect(Self.published(events).isEmpty)
        let errors = events.compactMap { if case .log(.error, let text, _) = $0 { text } else { nil } }
        #expect(
            errors.first?.contains("speaks schema 5") == true
                && errors.first?.contains("python-matter-server 7.0.x") == true)
        #expect(events.contains { if case .sourceAvailability(false, _) = $0 { true } else { false } })
        // A newer server that still speaks ours is fine.
        let newer = Self.receive(&plugin, "message", #"{"schema_version":12,"min_supported_schema_version":10}"#)
        #expect(Self.published(newer).count == 1)
    }

    @Test("attribute_updated: a value of a trait, a bridged endpoint's Reachable, and a path no trait reads")
    func attributeUpdates() throws {
        var (plugin, _) = try Self.listening()
        let on = Self.receive(&plugin, "message", #"{"event":"attribute_updated","data":[197,"1/6/0",true]}"#)
        guard case .values(let id, let updates, _)? = on.first else {
            Issue.record("no values: \(on)")
            return
        }
        #expect(id.rawValue == "matter-197")
        #expect(
            updates == [
                AttributeUpdate(
                    address: .init(deviceTypeKey: "ep1", traitID: .matter("OnOff")), attribute: "onOff",
                    value: .bool(true))
            ])
        let reachable = Self.receive(&plugin, "message", #"{"event":"attribute_updated","data":[1,"42/57/17",true]}"#)
        #expect(Self.availability(reachable)["1/42"]?.0 == true)
        #expect(Self.receive(&plugin, "message", #"{"event":"attribute_updated","data":[197,"0/48/0",1]}"#).isEmpty)
        #expect(Self.receive(&plugin, "message", #"{"event":"attribute_updated","data":[5555,"1/6/0",true]}"#).isEmpty)
    }

    @Test("node_updated with available false makes its devices offline saying which node; node_removed removes them")
    func nodeAvailabilityAndRemoval() throws {
        var (plugin, _) = try Self.listening()
        let text = try Self.nodeText("inovelli_vtm31.json").replacingOccurrences(
            of: #""available": true"#, with: #""available": false"#)
        let updated = Self.receive(&plugin, "message", #"{"event":"node_updated","data":\#(text)}"#)
        #expect(Self.availability(updated)["197"]?.0 == false)
        #expect(Self.availability(updated)["197"]?.1 == "Matter node 197 (available)")
        #expect(
            !updated.contains { if case .described = $0 { true } else { false } }, "same shape: not described again")
        let removed = Self.receive(&plugin, "message", #"{"event":"node_removed","data":197}"#)
        #expect(removed.contains { if case .removed(let id, _) = $0 { id.rawValue == "matter-197" } else { false } })
        #expect(plugin.deviceCount == 1)
    }

    @Test("a node the server no longer lists after a reconnect is removed")
    func relisted() throws {
        var (plugin, _) = try Self.listening()
        _ = Self.receive(&plugin, "server", #"{"connected":false,"error":"closed"}"#)
        let info = Self.receive(&plugin, "message", #"{"schema_version":11,"min_supported_schema_version":9}"#)
        let start = try #require(Self.published(info).first)
        let id = try #require(start.split(separator: "\"").dropFirst(3).first)
        let events = Self.receive(
            &plugin, "message", #"{"message_id":"\#(id)","result":[\#(try Self.nodeText("fritz_bridge.json"))]}"#)
        #expect(events.contains { if case .removed(let id, _) = $0 { id.rawValue == "matter-197" } else { false } })
    }

    @Test("commands: cluster commands and attribute writes the server understands; a refusal reaches the command")
    func commands() throws {
        var (plugin, _) = try Self.listening()
        let device = try DeviceID("matter-197")
        func write(_ key: String, _ trait: String, _ attribute: String, _ value: AttributeValue) -> AttributeUpdate {
            AttributeUpdate(
                address: .init(deviceTypeKey: key, traitID: .matter(trait)), attribute: attribute, value: value)
        }
        let sent = try plugin.commands(
            for: [
                write("ep1", "OnOff", "onOff", .bool(true)), write("ep1", "LevelControl", "currentLevel", .int(128)),
                write("ep6", "ColorControl", "colorTemperatureMireds", .int(300)),
                write("ep6", "ColorControl", "currentX", .int(20000)),
                write("ep6", "ColorControl", "currentY", .int(21000)),
                write("ep1", "LevelControl", "onLevel", .int(200)),
            ], on: device
        ).map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(sent.count == 5)
        #expect(sent[0].contains(#""command":"device_command""#) && sent[0].contains(#""command_name":"On""#))
        #expect(
            sent[0].contains(#""node_id":197"#) && sent[0].contains(#""endpoint_id":1"#)
                && sent[0].contains(#""cluster_id":6"#))
        #expect(sent[1].contains(#""command_name":"MoveToLevelWithOnOff""#) && sent[1].contains(#""level":128"#))
        #expect(sent[2].contains(#""colorTemperatureMireds":300"#) && sent[2].contains(#""endpoint_id":6"#))
        #expect(
            sent[3].contains(#""command_name":"MoveToColor""#) && sent[3].contains(#""colorX":20000"#)
                && sent[3].contains(#""colorY":21000"#))
        #expect(sent[4].contains(#""command":"write_attribute""#) && sent[4].contains(#""attribute_path":"1/8/17""#))
        #expect(throws: SourceCommandError.self) {
            try plugin.commands(for: [write("ep1", "LevelControl", "minLevel", .int(3))], on: device)
        }
        #expect(throws: SourceCommandError.self) {
            try plugin.commands(for: [write("ep6", "ColorControl", "currentX", .int(3))], on: device)
        }
        // The server refuses the first: the command ends with its words.
        let id = try #require(sent[0].split(separator: "\"").dropFirst(3).first)
        let answer = Self.receive(
            &plugin, "message", #"{"message_id":"\#(id)","error_code":3,"details":"Node 197 is not (yet) available."}"#)
        guard case .commandFailed(let failed, let reason)? = answer.first else {
            Issue.record("\(answer)")
            return
        }
        #expect(failed == device && reason.contains("Node 197 is not (yet) available.") && reason.contains("error 3"))
        // A success is confirmed by the attribute report that follows, not by the answer.
        let ok = try #require(sent[1].split(separator: "\"").dropFirst(3).first)
        #expect(Self.receive(&plugin, "message", #"{"message_id":"\#(ok)","result":null}"#).isEmpty)
    }

    @Test(
        "hostile server messages are refused with a reason, never a crash",
        arguments: [
            "not json", "[]", "{\"event\":\"node_added\",\"data\":[1,2]}",
            "{\"event\":\"node_added\",\"data\":{\"node_id\":-1}}",
            "{\"event\":\"node_added\",\"data\":{\"node_id\":1,\"attributes\":{\"x/y/z\":1,\"1/29/0\":\"no list\"}}}",
            "{\"event\":\"attribute_updated\",\"data\":[1,\"1/6\",true]}",
            "{\"event\":\"node_removed\",\"data\":\"x\"}",
            "{\"message_id\":\"start-99\",\"result\":{}}", "{\"schema_version\":\"eleven\"}",
        ])
    func hostile(_ text: String) throws {
        var plugin = try Self.plugin()
        let events = Self.receive(&plugin, "message", text)
        #expect(plugin.deviceCount == 0)
        #expect(!events.contains { if case .described = $0 { true } else { false } })
    }
}
