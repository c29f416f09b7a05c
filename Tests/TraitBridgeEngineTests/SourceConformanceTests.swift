import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources

/// One suite every source must pass, in the spirit of Home Assistant's shared MQTT platform
/// tests: each source is described by a driver (its messages for the same situations) and the
/// same assertions run for all of them through the bridge state machine.
@Suite("Source conformance")
struct SourceConformanceTests {
    typealias Message = (topic: String, payload: String)

    struct Driver: Sendable, CustomTestStringConvertible {
        var name: String
        var makeState: @Sendable () throws -> BridgeState
        var id: String
        /// Makes the device known (discovery config, announce, or first value).
        var discover: [Message]
        /// The same device announced again with a change (nil: the source has no config to change).
        var update: (messages: [Message], check: @Sendable (Device) -> Bool)?
        /// Removes it (nil: the source has no removal; Shelly devices stay until forgotten).
        var remove: [Message]?
        var online: Message
        var offline: Message
        /// The source's own parent (zigbee2mqtt's bridge); every source also has the broker.
        var parentOffline: Message?
        var parentOnline: Message?
        /// A value message, and the attribute it sets.
        var value: Message
        var valueAt: (key: String, trait: String, attribute: String, value: AttributeValue)
        var malformed: Message
        /// A unified command, the topic it must go out on, and the device's answer.
        var command: String
        var commandTopic: String
        var echo: Message
        /// The same device under another name / topic / prefix: the id must not change.
        var renamed: [Message]
        /// A message the bridge can receive before the device is known, and what it must have
        /// done once the device is (nil: the bridge subscribes to the device's topics only after
        /// discovery, so nothing can come early — `stateRequest` covers it).
        var early: (message: Message, check: @Sendable (Device) -> Bool)?
        /// The topic on which the bridge asks a just-discovered device for its state.
        var stateRequest: String?
        /// A topic the bridge subscribes to only once the device is discovered (the broker then
        /// sends its retained state: how Home Assistant itself gets an entity's first state).
        var subscription: String? = nil
        /// What an offline reason names when not the offline message's topic (a Matter node's
        /// `available` arrives in the server's message stream), and the parent's.
        var offlineReason: String? = nil
        var parentReason: String? = nil
        /// The write the plug-in alone is given (its conformance test) when the value's attribute is
        /// not one it writes (a camera's motion is read-only; its recording is written).
        var pluginWrite: AttributeUpdate? = nil
        var testDescription: String { name }
    }

    static let z2mLight = EngineFixtures.devicesPayload
    static let tasmotaConfig =
        #"{"ip":"127.0.0.1","dn":"Plug","fn":["Plug",null],"hn":"plug","mac":"A4CF12345678","md":"Generic","ofln":"Offline","onln":"Online","state":["OFF","ON","TOGGLE","HOLD"],"sw":"13.3.0","t":"plug","ft":"%prefix%/%topic%/","tp":["cmnd","stat","tele"],"rl":[1,0],"lt_st":0,"ver":1}"#

    static let haConfig =
        #"{"~":"plug9","stat_t":"~/state","val_tpl":"{{ value_json.power }}","cmd_t":"~/set","avty_t":"~/avail","uniq_id":"plug9_relay","dev":{"ids":["plug9"],"name":"Plug"}}"#

    static let drivers: [Driver] = [
        Driver(
            name: "zigbee2mqtt", makeState: { try EngineFixtures.state() }, id: "z2m-0x00158d0001000001",
            discover: [
                ("zigbee2mqtt/bridge/state", #"{"state":"online"}"#),
                ("zigbee2mqtt/bridge/devices", String(decoding: z2mLight, as: UTF8.self)),
            ],
            update: (
                [
                    (
                        "zigbee2mqtt/bridge/devices",
                        String(decoding: z2mLight, as: UTF8.self).replacingOccurrences(
                            of: "\"Hall light\"", with: "\"Hall lamp\"")
                    )
                ], { $0.name == "Hall lamp" }
            ),
            remove: [("zigbee2mqtt/bridge/devices", "[]")],
            online: ("zigbee2mqtt/Hall light/availability", "online"),
            offline: ("zigbee2mqtt/Hall light/availability", "offline"),
            parentOffline: ("zigbee2mqtt/bridge/state", #"{"state":"offline"}"#),
            parentOnline: ("zigbee2mqtt/bridge/state", #"{"state":"online"}"#),
            value: ("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":100}"#),
            valueAt: ("light", "OnOff", "onOff", .bool(true)),
            malformed: ("zigbee2mqtt/Hall light", "{not json"),
            command: #"{"id":"c","trait":"matter.OnOff","command":"off"}"#, commandTopic: "zigbee2mqtt/Hall light/set",
            echo: ("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":100}"#),
            renamed: [
                (
                    "zigbee2mqtt/bridge/devices",
                    String(decoding: z2mLight, as: UTF8.self).replacingOccurrences(
                        of: "\"Hall light\"", with: "\"Porch light\"")
                )
            ],
            early: (
                ("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":100}"#),
                { $0.deviceType(key: "light")?.trait(.matter("OnOff"))?.attributes["onOff"] == .bool(true) }
            ),
            stateRequest: nil),
        Driver(
            name: "Tasmota", makeState: { try EngineFixtures.state(withTasmota: true) }, id: "tasmota-a4cf12345678",
            discover: [("tasmota/discovery/A4CF12345678/config", tasmotaConfig)],
            update: (
                [
                    (
                        "tasmota/discovery/A4CF12345678/config",
                        tasmotaConfig.replacingOccurrences(of: "\"dn\":\"Plug\"", with: "\"dn\":\"Kettle\"")
                    )
                ], { $0.name == "Kettle" }
            ),
            remove: [("tasmota/discovery/A4CF12345678/config", "")],
            online: ("tele/plug/LWT", "Online"), offline: ("tele/plug/LWT", "Offline"), parentOffline: nil,
            parentOnline: nil,
            value: ("stat/plug/RESULT", #"{"POWER":"ON"}"#), valueAt: ("relay", "OnOff", "onOff", .bool(true)),
            malformed: ("stat/plug/POWER", "MAYBE"),
            command: #"{"id":"c","trait":"matter.OnOff","command":"off"}"#, commandTopic: "cmnd/plug/POWER1",
            echo: ("stat/plug/RESULT", #"{"POWER":"OFF"}"#),
            renamed: [
                (
                    "tasmota/discovery/A4CF12345678/config",
                    tasmotaConfig.replacingOccurrences(of: "plug", with: "socket")
                )
            ],
            early: nil, stateRequest: "cmnd/plug/STATE"),
        Driver(
            name: "Shelly Gen1", makeState: { try EngineFixtures.state(withShelly: true) }, id: "shelly-shelly1-aabbcc",
            discover: [
                (
                    "shellies/announce",
                    #"{"id":"shelly1-aabbcc","model":"SHSW-1","mac":"8CAAB5AABBCC","ip":"127.0.0.1","fw_ver":"v1.12"}"#
                ), ("shellies/shelly1-aabbcc/relay/0", "off"),
            ],
            update: (
                [
                    (
                        "shellies/announce",
                        #"{"id":"shelly1-aabbcc","model":"SHSW-1","mac":"8CAAB5AABBCC","ip":"127.0.0.1","fw_ver":"v1.14"}"#
                    )
                ], { $0.info.softwareVersion == "v1.14" }
            ),
            remove: nil,
            online: ("shellies/shelly1-aabbcc/online", "true"), offline: ("shellies/shelly1-aabbcc/online", "false"),
            parentOffline: nil, parentOnline: nil,
            value: ("shellies/shelly1-aabbcc/relay/0", "on"), valueAt: ("relay0", "OnOff", "onOff", .bool(true)),
            malformed: ("shellies/shelly1-aabbcc/relay/0", "maybe"),
            command: #"{"id":"c","trait":"matter.OnOff","command":"off"}"#,
            commandTopic: "shellies/shelly1-aabbcc/relay/0/command",
            echo: ("shellies/shelly1-aabbcc/relay/0", "off"),
            renamed: [("shellies/shelly1-aabbcc/relay/0", "off")],
            early: (
                ("shellies/shelly1-aabbcc/online", "false"), { $0.sourceConnectivity.connectivityState == .offline }
            ),
            stateRequest: nil),
        Driver(
            name: "Shelly Gen2", makeState: { try EngineFixtures.state(withShelly: true) },
            id: "shelly-shellyplus1-aabbccddeeff",
            discover: [
                (
                    "garage/events/rpc",
                    #"{"src":"shellyplus1-aabbccddeeff","method":"NotifyFullStatus","params":{"switch:0":{"id":0,"output":false}}}"#
                )
            ],
            update: (
                [
                    (
                        "garage/events/rpc",
                        #"{"src":"shellyplus1-aabbccddeeff","method":"NotifyFullStatus","params":{"switch:0":{"id":0,"output":false,"apower":5}}}"#
                    )
                ],
                { $0.deviceType(key: "switch0-power") != nil }
            ),
            remove: nil,
            online: ("garage/online", "true"), offline: ("garage/online", "false"), parentOffline: nil,
            parentOnline: nil,
            value: ("garage/status/switch:0", #"{"id":0,"output":true}"#),
            valueAt: ("switch0", "OnOff", "onOff", .bool(true)),
            malformed: ("garage/events/rpc", #"{"method":"NotifyStatus"}"#),
            command: #"{"id":"c","trait":"matter.OnOff","command":"off"}"#, commandTopic: "garage/rpc",
            echo: (
                "garage/events/rpc",
                #"{"src":"shellyplus1-aabbccddeeff","method":"NotifyStatus","params":{"switch:0":{"id":0,"output":false}}}"#
            ),
            renamed: [
                (
                    "shed/events/rpc",
                    #"{"src":"shellyplus1-aabbccddeeff","method":"NotifyFullStatus","params":{"switch:0":{"id":0,"output":false}}}"#
                )
            ],
            early: (
                ("garage/status/switch:0", #"{"id":0,"output":true,"apower":12.5}"#),
                {
                    $0.deviceType(key: "switch0-power")?.trait(.matter("ElectricalPowerMeasurement"))?.attributes[
                        "activePower"] == .int(12_500)
                }
            ),
            stateRequest: nil),
        Driver(
            name: "Home Assistant discovery", makeState: { try EngineFixtures.state(withHomeAssistant: true) },
            id: "ha-plug9",
            discover: [("homeassistant/switch/plug9/relay/config", haConfig)],
            update: (
                [
                    (
                        "homeassistant/switch/plug9/relay/config",
                        haConfig.replacingOccurrences(of: "\"name\":\"Plug\"", with: "\"name\":\"Kettle\"")
                    )
                ], { $0.name == "Kettle" }
            ),
            remove: [("homeassistant/switch/plug9/relay/config", "")],
            online: ("plug9/avail", "online"), offline: ("plug9/avail", "offline"), parentOffline: nil,
            parentOnline: nil,
            value: ("plug9/state", #"{"power":"ON"}"#), valueAt: ("relay", "OnOff", "onOff", .bool(true)),
            malformed: ("plug9/state", "{not json"),
            command: #"{"id":"c","trait":"matter.OnOff","command":"off"}"#, commandTopic: "plug9/set",
            echo: ("plug9/state", #"{"power":"OFF"}"#),
            // Another config topic for the same HA device (same identifiers).
            renamed: [("homeassistant/switch/node7/relay/config", haConfig)],
            early: nil, stateRequest: nil, subscription: "plug9/state"),
        Driver(
            name: "generic topics", makeState: { try GenericSourceTests().state() }, id: "generic-plug1",
            discover: [],  // described by its mappings file: known from the start, nothing to discover or remove
            update: nil, remove: nil,
            online: ("home/plug1/LWT", "Online"), offline: ("home/plug1/LWT", "Offline"), parentOffline: nil,
            parentOnline: nil,
            value: ("home/plug1/POWER", "ON"), valueAt: ("plug", "OnOff", "onOff", .bool(true)),
            malformed: ("home/plug1/POWER", "MAYBE"),
            command: #"{"id":"c","trait":"matter.OnOff","command":"off"}"#, commandTopic: "home/plug1/cmnd/POWER",
            echo: ("home/plug1/POWER", "OFF"),
            renamed: [],
            early: nil, stateRequest: nil),
        Driver(
            name: "Matter Server", makeState: { try EngineFixtures.state(withMatter: true) }, id: "matter-7",
            discover: [
                ("matter/default/server", #"{"connected":true,"url":"ws://127.0.0.1:5580/ws"}"#),
                ("matter/default/message", #"{"schema_version":11,"min_supported_schema_version":9}"#),
                ("matter/default/message", #"{"message_id":"start-1","result":[\#(matterNode())]}"#),
            ],
            update: (
                [("matter/default/message", #"{"event":"node_updated","data":\#(matterNode(label: "Reading lamp"))}"#)],
                { $0.name == "Reading lamp" }
            ),
            remove: [("matter/default/message", #"{"event":"node_removed","data":7}"#)],
            online: ("matter/default/message", #"{"event":"node_updated","data":\#(matterNode())}"#),
            offline: ("matter/default/message", #"{"event":"node_updated","data":\#(matterNode(available: false))}"#),
            parentOffline: (
                "matter/default/server", #"{"connected":false,"url":"ws://127.0.0.1:5580/ws","error":"closed"}"#
            ),
            parentOnline: ("matter/default/server", #"{"connected":true,"url":"ws://127.0.0.1:5580/ws"}"#),
            value: ("matter/default/message", #"{"event":"attribute_updated","data":[7,"1/6/0",true]}"#),
            valueAt: ("ep1", "OnOff", "onOff", .bool(true)),
            malformed: ("matter/default/message", "{not json"),
            command: #"{"id":"c","trait":"matter.OnOff","command":"off"}"#, commandTopic: "matter/default/command",
            echo: ("matter/default/message", #"{"event":"attribute_updated","data":[7,"1/6/0",false]}"#),
            renamed: [
                ("matter/default/server", #"{"connected":true,"url":"ws://127.0.0.1:5580/ws"}"#),
                ("matter/default/message", #"{"schema_version":11,"min_supported_schema_version":9}"#),
                ("matter/default/message", #"{"message_id":"start-1","result":[\#(matterNode(label: "Other"))]}"#),
            ],
            early: nil, stateRequest: "matter/default/command",
            offlineReason: "Matter node 7 (available)", parentReason: "Matter Server ws://127.0.0.1:5580/ws"),
        // The family only the tests know (SampleSource/): its driver is all it adds here.
        Driver(
            name: "sample", makeState: { try SampleSourceTests.state() }, id: "sample-s-1",
            discover: [("sample/plug1/config", #"{"serial":"S-1","name":"Plug"}"#)],
            update: ([("sample/plug1/config", #"{"serial":"S-1","name":"Kettle"}"#)], { $0.name == "Kettle" }),
            remove: [("sample/plug1/config", "")],
            online: ("sample/plug1/avail", "online"), offline: ("sample/plug1/avail", "offline"), parentOffline: nil,
            parentOnline: nil,
            value: ("sample/plug1/state", "ON"), valueAt: ("plug", "OnOff", "onOff", .bool(true)),
            malformed: ("sample/plug1/state", "MAYBE"),
            command: #"{"id":"c","trait":"matter.OnOff","command":"off"}"#, commandTopic: "sample/plug1/set",
            echo: ("sample/plug1/state", "OFF"),
            renamed: [("sample/socket7/config", #"{"serial":"S-1","name":"Plug"}"#)],
            early: (
                ("sample/plug1/state", "ON"),
                { $0.deviceType(key: "plug")?.trait(.matter("OnOff"))?.attributes["onOff"] == .bool(true) }
            ),
            stateRequest: nil),
        Driver(
            name: "Frigate", makeState: { try EngineFixtures.state(withFrigate: true) }, id: "frigate-front_door",
            discover: [
                ("frigate/available", "online"), ("frigate/stats", frigateStats(fps: 5)),
                ("frigate/front_door/recordings/state", "ON"), ("frigate/front_door/motion_threshold/state", "30"),
            ],
            update: nil, remove: nil,
            online: ("frigate/stats", frigateStats(fps: 5)), offline: ("frigate/stats", frigateStats(fps: 0)),
            parentOffline: ("frigate/available", "offline"), parentOnline: ("frigate/available", "online"),
            value: ("frigate/front_door/motion", "ON"), valueAt: ("camera", "OccupancySensing", "occupancy", .int(1)),
            malformed: ("frigate/front_door/motion", "MAYBE"),
            command:
                #"{"id":"c","trait":"google.PushAvStreamTransport","command":"setTransportStatus","#
                + #""arguments":{"transportStatus":1}}"#,
            commandTopic: "frigate/front_door/recordings/set",
            echo: ("frigate/front_door/recordings/state", "OFF"),
            renamed: [("frigate/front_door/recordings/state", "ON")],
            early: (
                ("frigate/front_door/motion", "ON"),
                { $0.deviceType(key: "camera")?.trait(.matter("OccupancySensing"))?.attributes["occupancy"] == .int(1) }
            ),
            stateRequest: nil, offlineReason: "front_door camera_fps 0",
            pluginWrite: AttributeUpdate(
                address: TraitAddress(deviceTypeKey: "camera", traitID: .google("PushAvStreamTransport")),
                attribute: "currentConnections",
                value: .list([.structure(["connectionId": .int(1), "transportStatus": .int(1)])]))),
    ]

    /// Frigate's stats (the shape of its `/api/stats`, as `frigate/stats` carries it) for one camera.
    static func frigateStats(fps: Double) -> String {
        #"{"cameras":{"front_door":{"camera_fps":\#(fps),"process_fps":\#(fps),"skipped_fps":0.0,"#
            + #""detection_fps":0.0,"pid":52,"capture_pid":36,"ffmpeg_pid":37}},"detection_fps":0.0,"#
            + #""service":{"uptime":120,"version":"0.14.1"}}"#
    }

    /// A small Matter node as the Matter Server sends it: a root endpoint and an On/Off Light.
    static func matterNode(label: String = "Desk lamp", available: Bool = true) -> String {
        #"{"node_id":7,"date_commissioned":"2026-01-01T00:00:00","last_interview":"2026-01-01T00:00:00","#
            + #""interview_version":6,"available":\#(available),"is_bridge":false,"attributes":{"#
            + #""0/29/0":[{"0":22,"1":1}],"0/29/1":[29,40],"0/29/3":[1],"0/40/1":"Acme","0/40/2":65521,"#
            + #""0/40/3":"Lamp","0/40/4":32768,"0/40/5":"\#(label)","0/40/18":"ACME-0001","#
            + #""1/29/0":[{"0":256,"1":3}],"1/29/1":[3,4,6,29],"1/3/0":0,"1/3/1":2,"1/6/0":false}}"#
    }

    func ready(_ driver: Driver) throws -> BridgeState {
        var state = try driver.makeState()
        _ = state.brokerConnected(now: Date())
        for message in driver.discover { _ = state.receive(message.topic, message.payload) }
        return state
    }

    func device(_ state: BridgeState, _ driver: Driver) throws -> Device {
        try #require(state.graph.devices[try DeviceID(driver.id)], "\(driver.name): device \(driver.id) is known")
    }

    func connectivity(_ state: BridgeState, _ driver: Driver) throws -> (TraitConnectivityState, String) {
        let device = try device(state, driver)
        let trait = try #require(device.deviceType(key: driver.valueAt.key)?.trait(.matter(driver.valueAt.trait)))
        return (trait.connectivity.state, trait.connectivity.reason?.description ?? "")
    }

    @Test(
        "discovery adds the device; the same discovery again publishes nothing and changes nothing", arguments: drivers)
    func discoveryAndNoOp(_ driver: Driver) throws {
        var state = try ready(driver)
        _ = try device(state, driver)
        let before = state.graph
        var repeated: [String] = []
        for message in driver.discover.filter({ !$0.topic.hasSuffix("/bridge/state") }) {
            // Later, so a connectivity "since" that moved would change the published state.
            repeated += state.receive(message.topic, message.payload, at: Date().addingTimeInterval(5)).publications
                .map(\.topic)
        }
        #expect(!repeated.contains("traitbridge/devices/\(driver.id)"), "no new description for an unchanged config")
        #expect(!repeated.contains("traitbridge/devices/\(driver.id)/state"), "no new state either")
        let after = try device(state, driver)
        let earlier = try #require(before.devices[try DeviceID(driver.id)])
        #expect(after.traitAddresses == earlier.traitAddresses)
        #expect(
            after.traitAddresses.map { after.trait(at: $0)?.attributes }
                == earlier.traitAddresses.map { earlier.trait(at: $0)?.attributes })
    }

    @Test("a changed config updates the device in place (same id)", arguments: drivers.filter { $0.update != nil })
    func update(_ driver: Driver) throws {
        var state = try ready(driver)
        let update = try #require(driver.update)
        var published: [String] = []
        for message in update.messages {
            published += state.receive(message.topic, message.payload).publications.map(\.topic)
        }
        #expect(update.check(try device(state, driver)))
        #expect(published.contains("traitbridge/devices/\(driver.id)"), "the new description is published")
    }

    @Test(
        "removal by the source's own signal (an empty retained config, a device missing from the list) clears the retained topics",
        arguments: drivers.filter { $0.remove != nil })
    func removal(_ driver: Driver) throws {
        var state = try ready(driver)
        var cleared: [String] = []
        for message in driver.remove ?? [] {
            cleared += state.receive(message.topic, message.payload).publications.filter(\.payload.isEmpty).map(\.topic)
        }
        #expect(state.graph.devices[try DeviceID(driver.id)] == nil)
        #expect(cleared.contains("traitbridge/devices/\(driver.id)"))
        #expect(cleared.contains("traitbridge/devices/\(driver.id)/state"))
    }
}
