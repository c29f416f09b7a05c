import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// Colour of Home Assistant lights through Google's spectrum colours: xy, rgb and hs lights of
/// both schemas are read, reported as `spectrumRgb`, and set in the form each light takes.
@Suite("Home Assistant light colour, both ways")
struct HomeAssistantColorTests {
    static let device = #""dev":{"ids":["dev1"],"name":"Test device"}"#
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func home(_ config: String) throws -> BridgeState {
        var state = try EngineFixtures.state(withCloud: true, withHomeAssistant: true)
        _ = state.brokerConnected(now: now)
        _ = state.receive("homeassistant/light/dev1/lamp/config", config, at: now)
        return state
    }

    /// QUERY's `color.spectrumRgb` of the light, as red, green, blue.
    func queriedColor(_ state: BridgeState) throws -> (Int64, Int64, Int64) {
        let body = Array(
            #"{"requestId":"q","inputs":[{"intent":"action.devices.QUERY","payload":{"devices":[{"id":"ha-dev1"}]}}]}"#
                .utf8)
        let root = try JSONDocument.parse(state.smartHomeQuery(body, requestID: "q", source: "test")).root
        let rgb = try #require(root["payload"]?["devices"]?["ha-dev1"]?["color"]?["spectrumRgb"]?.int64, "\(root)")
        return (rgb >> 16 & 0xFF, rgb >> 8 & 0xFF, rgb & 0xFF)
    }

    /// What an EXECUTE of ColorAbsolute spectrumRGB publishes to the light.
    func execute(_ state: inout BridgeState, rgb: Int) throws -> [(topic: String, payload: String)] {
        let body = Array(
            #"{"requestId":"e","inputs":[{"intent":"action.devices.EXECUTE","payload":{"commands":[{"devices":[{"id":"ha-dev1"}],"execution":[{"command":"action.devices.commands.ColorAbsolute","params":{"color":{"spectrumRGB":\#(rgb)}}}]}]}}]}"#
                .utf8)
        let effects = state.smartHomeExecute(body, requestID: "e", source: "test", waiter: 1, now: now)
        #expect(
            effects.answers.isEmpty,
            "no immediate answer (refusal): \(effects.answers.map { String(decoding: $0.payload, as: UTF8.self) })")
        return effects.publications.filter { !$0.topic.hasPrefix("traitbridge/") }.map {
            ($0.topic, String(decoding: $0.payload, as: UTF8.self))
        }
    }

    func near(_ color: (Int64, Int64, Int64), _ expected: (Int64, Int64, Int64)) -> Bool {
        abs(color.0 - expected.0) <= 8 && abs(color.1 - expected.1) <= 8 && abs(color.2 - expected.2) <= 8
    }

    @Test("json schema, xy: the reported xy is QUERY's spectrumRgb; spectrumRGB is sent as x, y")
    func jsonXY() throws {
        var state = try home(
            #"{"~":"lights/lamp","cmd_t":"~/set","stat_t":"~","schema":"json","sup_clrm":["xy"],"uniq_id":"lamp1",\#(Self.device)}"#
        )
        _ = state.receive("lights/lamp", #"{"state":"ON","color_mode":"xy","color":{"x":0.64,"y":0.33}}"#, at: now)
        #expect(near(try queriedColor(state), (255, 0, 0)), "red")
        let sent = try execute(&state, rgb: 0x0000FF)
        let command = try #require(sent.first { $0.topic == "lights/lamp/set" }, "\(sent)")
        let color = try JSONDocument.parse(Array(command.payload.utf8)).root["color"]
        #expect(
            abs((color?["x"]?.double ?? 0) - 0.15) < 0.003 && abs((color?["y"]?.double ?? 0) - 0.06) < 0.003,
            "\(command.payload)")
    }

    @Test("json schema, rgb: r, g, b are read as xy and written from it")
    func jsonRGB() throws {
        var state = try home(
            #"{"~":"lights/lamp","cmd_t":"~/set","stat_t":"~","schema":"json","sup_clrm":["rgb"],"uniq_id":"lamp1",\#(Self.device)}"#
        )
        _ = state.receive("lights/lamp", #"{"state":"ON","color_mode":"rgb","color":{"r":0,"g":255,"b":0}}"#, at: now)
        #expect(near(try queriedColor(state), (0, 255, 0)), "green")
        let sent = try execute(&state, rgb: 0xFF0000)
        let command = try #require(sent.first { $0.topic == "lights/lamp/set" }, "\(sent)")
        let color = try JSONDocument.parse(Array(command.payload.utf8)).root["color"]
        #expect(
            color?["r"]?.int64 == 255 && (color?["g"]?.int64 ?? 99) <= 3 && (color?["b"]?.int64 ?? 99) <= 3,
            "\(command.payload)")
        #expect(color?["x"] == nil, "an rgb light is never sent x, y")
    }

    @Test("default schema: hs_state_topic is read; spectrumRGB goes to hs_command_topic as h,s")
    func defaultHS() throws {
        var state = try home(
            #"{"~":"lamp","cmd_t":"~/set","stat_t":"~/state","hs_stat_t":"~/hs","hs_cmd_t":"~/hs/set","rgb_cmd_t":"~/rgb/set","uniq_id":"lamp1",\#(Self.device)}"#
        )
        _ = state.receive("lamp/state", "ON", at: now)
        _ = state.receive("lamp/hs", "240,100", at: now)
        #expect(near(try queriedColor(state), (0, 0, 255)), "blue")
        let sent = try execute(&state, rgb: 0xFF0000)
        #expect(sent.map(\.topic) == ["lamp/hs/set"], "hs first, one message: \(sent)")
        #expect(sent.first?.payload == "0,100", "\(sent)")
        let bad = state.receive("lamp/hs", "240", at: now)
        #expect(
            bad.logs.contains { $0.message.contains("expected hue,saturation, found '240'") },
            "\(bad.logs.map(\.message))")
    }

    @Test("default schema, rgb only: r,g,b is read and written")
    func defaultRGB() throws {
        var state = try home(
            #"{"~":"lamp","cmd_t":"~/set","stat_t":"~/state","rgb_stat_t":"~/rgb","rgb_cmd_t":"~/rgb/set","uniq_id":"lamp1",\#(Self.device)}"#
        )
        _ = state.receive("lamp/state", "ON", at: now)
        _ = state.receive("lamp/rgb", "255,0,0", at: now)
        #expect(near(try queriedColor(state), (255, 0, 0)))
        let sent = try execute(&state, rgb: 0x00FF00)
        #expect(sent.map(\.topic) == ["lamp/rgb/set"], "\(sent)")
        let parts = (sent.first?.payload ?? "").split(separator: ",").compactMap { Int($0) }
        #expect(parts.count == 3 && parts[1] == 255 && parts[0] <= 3 && parts[2] <= 3, "\(sent)")
    }
}
