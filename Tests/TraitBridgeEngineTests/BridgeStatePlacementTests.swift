import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeStore

/// `rename` and `move` as the state machine sees them: the user's name and room win over the
/// sources', refusals change nothing, and the answer goes where the request asked (MQTT 5
/// Response Topic with Correlation Data, or the 3.1.1 topic form).
@Suite("user names and rooms (rename, move)")
struct BridgeStatePlacementTests {
    static let address = ReplyAddress(topic: "app/answers", correlationData: Array("c-7".utf8))

    func discovered() throws -> BridgeState {
        var state = try EngineFixtures.state()
        _ = state.brokerConnected(now: Date())
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        return state
    }

    func ask(_ state: inout BridgeState, _ operation: String, _ payload: String) throws -> (BridgeEffects, JSON) {
        let effects = state.handleMessage(topic: "traitbridge/bridge/request/\(operation)", payload: Array(payload.utf8), now: Date(), replyTo: Self.address)
        let answer = try #require(effects.publications.first { $0.topic == Self.address.topic })
        #expect(answer.correlationData == Self.address.correlationData, "the answer echoes the correlation data")
        #expect(answer.qos == 1 && !answer.isRetained)
        return (effects, try JSONDocument.parse(answer.payload).root)
    }

    @Test("rename and move answer with the new name and room, republish the device and keep both in the registry")
    func renameAndMove() throws {
        var state = try discovered()
        let relay = EngineFixtures.relay.rawValue
        let (renamed, answer) = try ask(&state, "rename", #"{"device": "\#(relay)", "name": "  Stair switch "}"#)
        #expect(answer["status"]?.string == "ok")
        #expect(answer["name"]?.string == "Stair switch", "trimmed")
        #expect(renamed.last("traitbridge/devices/\(relay)")?["name"]?.string == "Stair switch")
        #expect(renamed.last("traitbridge/devices/\(relay)/state")?["name"]?.string == "Stair switch")
        #expect(renamed.storeChanges.contains(.placement(EngineFixtures.relay, UserPlacement(name: "Stair switch"))))
        let (moved, movedAnswer) = try ask(&state, "move", #"{"device": "\#(relay)", "room": "Hallway"}"#)
        #expect(movedAnswer["room"]?.string == "Hallway")
        #expect(moved.last("traitbridge/devices/\(relay)")?["room"]?.string == "Hallway")
        #expect(moved.storeChanges.contains(.placement(EngineFixtures.relay, UserPlacement(name: "Stair switch", room: "Hallway"))))
        #expect(state.graph.room(of: EngineFixtures.relay)?.name == "Hallway")
    }

    @Test("the user's name and room win when the source describes the device again; --reset gives back the source's name")
    func userWins() throws {
        var state = try discovered()
        let relay = EngineFixtures.relay.rawValue
        _ = try ask(&state, "rename", #"{"device": "\#(relay)", "name": "Stair switch"}"#)
        _ = try ask(&state, "move", #"{"device": "\#(relay)", "room": "Hallway"}"#)
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        #expect(state.graph.devices[EngineFixtures.relay]?.name == "Stair switch")
        #expect(state.graph.room(of: EngineFixtures.relay)?.name == "Hallway")
        let (_, reset) = try ask(&state, "rename", #"{"device": "\#(relay)", "name": null}"#)
        #expect(reset["name"]?.string == "Relay", "zigbee2mqtt's friendly_name again")
        let (back, home) = try ask(&state, "move", #"{"device": "\#(relay)", "room": null}"#)
        #expect(home["room"]?.string == "Entire Home")
        #expect(back.storeChanges.contains(.placement(EngineFixtures.relay, UserPlacement())), "an empty placement deletes the row")
    }

    @Test("refusals say why and change nothing", arguments: [
        (#"{"device": "z2m-0x00158d0001000003", "name": "hall LIGHT"}"#, "rename", "another device (z2m-0x00158d0001000001) is already called 'Hall light'"),
        (#"{"device": "z2m-0x00158d0001000003", "name": ""}"#, "rename", "the name is empty"),
        (#"{"device": "z2m-0x00158d0001000003", "name": 7}"#, "rename", #"give "name" as a string, or null to reset it"#),
        (#"{"device": "z2m-0x00158d0001000003", "room": "Bad/room"}"#, "move", "'Bad/room' cannot be a room"),
        (#"{"device": "nobody", "room": "Kitchen"}"#, "move", "no device with id 'nobody'"),
        (#"{"device": "#, "move", "the request is not JSON"),
    ])
    func refusals(payload: String, operation: String, message: String) throws {
        var state = try discovered()
        let before = state.graph
        let (effects, answer) = try ask(&state, operation, payload)
        #expect(answer["status"]?.string == "error")
        #expect(answer["message"]?.string?.contains(message) == true, "\(answer["message"]?.string ?? "")")
        #expect(state.graph == before)
        #expect(effects.storeChanges.isEmpty)
        #expect(effects.publications.count == 1, "only the answer")
    }

    @Test("an MQTT 3.1.1 request names its correlation in the topic and is answered on …/response/<op>/<correlation>; one with neither is not run")
    func topicCorrelation() throws {
        var state = try discovered()
        let relay = EngineFixtures.relay.rawValue
        let effects = state.receive("traitbridge/bridge/request/rename/abc", #"{"device": "\#(relay)", "name": "Stair switch"}"#)
        let answer = try #require(effects.last("traitbridge/bridge/response/rename/abc"))
        #expect(answer["name"]?.string == "Stair switch")
        #expect(effects.publications.first { $0.topic.hasSuffix("/abc") }?.correlationData == nil)
        let nowhere = state.receive("traitbridge/bridge/request/rename", #"{"device": "\#(relay)", "name": "Other"}"#)
        #expect(!nowhere.publications.contains { $0.topic.contains("/bridge/response/") })
        #expect(nowhere.logs.contains { $0.message.contains("cannot be answered") })
        #expect(state.graph.devices[EngineFixtures.relay]?.name == "Stair switch")
    }

    @Test("placements kept in the registry come back at start, before the source speaks, and still win after")
    func restored() throws {
        var state = try EngineFixtures.state()
        _ = state.restorePlacements([EngineFixtures.relay: UserPlacement(name: "Stair switch", room: "Hallway")])
        _ = state.brokerConnected(now: Date())
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        #expect(state.graph.devices[EngineFixtures.relay]?.name == "Stair switch")
        #expect(state.graph.room(of: EngineFixtures.relay)?.name == "Hallway")
        #expect(state.graph.devices[EngineFixtures.light]?.name == "Hall light", "the others keep their sources' names")
    }
}
