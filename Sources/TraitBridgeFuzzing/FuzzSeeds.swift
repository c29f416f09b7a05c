import Foundation
import TraitBridgeJSON

/// Where each fuzz target starts: the well-formed messages of the tests and every real payload of
/// `../shared/corpus` that fits the target. `make fuzz` writes them into `Fuzz/corpus/<target>/`
/// (beside what earlier runs found) before a run.
public enum FuzzSeeds {
    typealias Message = (topic: String, payload: [UInt8])

    static let tasmotaConfig =
        #"{"ip":"127.0.0.1","dn":"Plug","fn":["Plug",null],"hn":"plug","mac":"A4CF12345678","md":"Generic","#
        + #""ofln":"Offline","onln":"Online","state":["OFF","ON","TOGGLE","HOLD"],"sw":"13.3.0","t":"plug","ft":"%prefix%/%topic%/","#
        + #""tp":["cmnd","stat","tele"],"rl":[1,0],"lt_st":0,"ver":1}"#
    static let haConfig =
        #"{"~":"plug9","stat_t":"~/state","val_tpl":"{{ value_json.power }}","cmd_t":"~/set","avty_t":"~/avail","#
        + #""uniq_id":"plug9_relay","dev":{"ids":["plug9"],"name":"Plug"}}"#
    static let shellyAnnounce =
        #"{"id":"shelly1-aabbcc","model":"SHSW-1","mac":"8CAAB5AABBCC","ip":"127.0.0.1","fw_ver":"v1.12"}"#
    static let shellyGen2 =
        #"{"src":"shellyplus1-aabbccddeeff","method":"NotifyFullStatus","params":{"switch:0":{"id":0,"output":false,"apower":5}}}"#
    static let zigbee2mqttDevices = """
        [{"ieee_address":"0x0000000000000000","type":"Coordinator","friendly_name":"Coordinator"},
         {"ieee_address":"0x00158d0001000001","type":"Router","friendly_name":"Hall light","power_source":"Mains (single phase)",
          "definition":{"vendor":"IKEA","model":"LED1545G12","exposes":[{"type":"light","features":[
            {"type":"binary","name":"state","property":"state","access":7,"value_on":"ON","value_off":"OFF","value_toggle":"TOGGLE"},
            {"type":"numeric","name":"brightness","property":"brightness","access":7,"value_min":0,"value_max":254},
            {"type":"numeric","name":"color_temp","property":"color_temp","access":7,"value_min":250,"value_max":454,"unit":"mired"},
            {"type":"composite","name":"color_xy","property":"color","access":7,"features":[
              {"type":"numeric","name":"x","property":"x","access":7},{"type":"numeric","name":"y","property":"y","access":7}]}]},
            {"type":"numeric","name":"linkquality","property":"linkquality","access":1}]}},
         {"ieee_address":"0x00158d0001000002","type":"EndDevice","friendly_name":"Climate","power_source":"Battery",
          "definition":{"vendor":"Aqara","model":"WSDCGQ11LM","exposes":[
            {"type":"numeric","name":"temperature","property":"temperature","access":1,"unit":"°C"},
            {"type":"numeric","name":"battery","property":"battery","access":1,"unit":"%"}]}},
         {"ieee_address":"0x00158d0001000003","type":"Router","friendly_name":"Relay","power_source":"Mains (single phase)",
          "definition":{"vendor":"Aqara","model":"DCM-K01","exposes":[
            {"type":"switch","endpoint":"l1","features":[
              {"type":"binary","name":"state","property":"state_l1","access":7,"value_on":"ON","value_off":"OFF"}]}]}}]
        """

    /// What the fuzz world receives before any input: a device of every source, online, with values.
    static let preparation: [Message] = [
        ("zigbee2mqtt/bridge/state", #"{"state":"online"}"#), ("zigbee2mqtt/bridge/devices", zigbee2mqttDevices),
        ("zigbee2mqtt/Hall light/availability", "online"),
        ("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":100}"#),
        ("tasmota/discovery/A4CF12345678/config", tasmotaConfig), ("tele/plug/LWT", "Online"),
        ("stat/plug/RESULT", #"{"POWER":"ON"}"#),
        ("shellies/announce", shellyAnnounce), ("shellies/shelly1-aabbcc/relay/0", "off"),
        ("shellies/shelly1-aabbcc/online", "true"),
        ("garage/events/rpc", shellyGen2), ("garage/online", "true"),
        ("homeassistant/switch/plug9/relay/config", haConfig), ("plug9/avail", "online"),
        ("plug9/state", #"{"power":"ON"}"#),
        ("home/plug1/LWT", "Online"), ("home/plug1/POWER", "ON"),
        ("home/hall-relay/state", #"{"relay":{"on":true},"temperature":23.5}"#),
        ("frigate/available", "online"),
        ("frigate/stats", #"{"cameras":{"front_door":{"camera_fps":5.0,"process_fps":5.0}},"service":{"uptime":9}}"#),
        ("frigate/front_door/recordings/state", "ON"), ("frigate/front_door/motion_threshold/state", "30"),
        ("frigate/front_door/motion_contour_area/state", "10"), ("frigate/front_door/motion", "ON"),
        ("homeassistant/status", "online"),
    ].map { ($0.0, Array($0.1.utf8)) }

    /// A small Matter node (root and an On/Off Light), as the Matter Server sends it.
    static let matterNode =
        #"{"node_id":7,"available":true,"is_bridge":false,"attributes":{"0/29/0":[{"0":22,"1":1}],"0/29/1":[29,40],"#
        + #""0/40/1":"Acme","0/40/2":65521,"0/40/4":32768,"0/40/5":"Desk lamp","0/40/18":"ACME-0001","#
        + #""1/29/0":[{"0":256,"1":3}],"1/29/1":[3,4,6,29],"1/3/0":0,"1/6/0":false}}"#

    /// The Matter Server's connection as the fuzz world gets it before any input: connected, its
    /// info, and `start_listening` answered with one node.
    static let matterPreparation: [Message] = [
        ("matter/default/server", #"{"connected":true,"url":"ws://127.0.0.1:5580/ws"}"#),
        ("matter/default/message", #"{"schema_version":11,"min_supported_schema_version":9}"#),
        ("matter/default/message", #"{"message_id":"start-1","result":[\#(matterNode)]}"#),
        ("matter/default/message", #"{"event":"attribute_updated","data":[7,"1/6/0",true]}"#),
    ].map { ($0.0, Array($0.1.utf8)) }

    /// The mappings files the `mappings` target replaces (its first byte picks one).
    static let mappingFiles = [
        "catalog/traits.json", "catalog/device-types.json", "catalog/google.json", "catalog/google-c2c.json",
        "catalog/vendor-example.json",
        "sources/zigbee2mqtt.json", "sources/tasmota.json", "sources/shelly.json", "sources/homeassistant.json",
        "sources/frigate.json",
        "cloud/google-c2c.json",
        "generic/devices.json",
        "homekit/accessories.json",
        "homeassistant/entities.json",
        "matter/clusters.json",
        "presentation/values.json",
    ]

    /// The seed inputs of a target.
    public static func seeds(for target: FuzzTarget) -> [[UInt8]] {
        let commands = [
            #"{"id":"c","trait":"matter.OnOff","command":"off"}"#,
            #"{"id":"c","trait":"matter.OnOff","command":"toggle"}"#,
            #"{"id":"c","trait":"matter.LevelControl","command":"moveToLevel","args":{"level":20}}"#,
            #"{"id":"c","trait":"matter.ColorControl","attribute":"colorTemperatureMireds","value":300}"#,
            #"{"id":"c","deviceType":"relay","trait":"matter.OnOff","attribute":"onOff","value":true}"#,
            #"{"id":"c","trait":"google.PushAvStreamTransport","command":"setTransportStatus","#
                + #""arguments":{"transportStatus":1}}"#,
        ]
        let devices = [
            "z2m-0x00158d0001000001", "tasmota-a4cf12345678", "shelly-shelly1-aabbcc",
            "shelly-shellyplus1-aabbccddeeff",
            "ha-plug9", "generic-plug1", "frigate-front_door",
        ]
        switch target {
        case .zigbee2mqtt:
            return messages(in: "zigbee2mqtt", defaultTopic: "zigbee2mqtt/bridge/devices")
                + single(FuzzSeeds.preparation.prefix(4))
        case .tasmota:
            return messages(in: "tasmota", defaultTopic: "stat/plug/RESULT") + single(FuzzSeeds.preparation[4..<7])
        case .shelly:
            return messages(in: "shelly", defaultTopic: "shellies/announce") + single(FuzzSeeds.preparation[7..<12])
        case .homeassistant:
            return messages(in: "homeassistant-discovery", defaultTopic: "homeassistant/sensor/fuzz/config")
                + single(FuzzSeeds.preparation[12..<15])
        case .generic: return single(FuzzSeeds.preparation[15..<18])
        case .frigate:
            // Frigate's documented events and reviews (the tests' fixtures) and the preparation's messages.
            let documented = ["events-update.json", "reviews-update.json"].compactMap { name in
                try? FuzzPaths.bytes(FuzzPaths.frigateFixtures + "/" + name)
            }
            return single(FuzzSeeds.preparation[18...])
                + documented.map { FuzzInput.encode([("frigate/events", $0), ("frigate/reviews", $0)]) }
        case .matter:
            // Each corpus node as the server adds it, then as the whole list of a reconnect.
            let nodes = files(in: "matter/nodes")
            return single(FuzzSeeds.matterPreparation)
                + nodes.map { node in
                    FuzzInput.encode([
                        (
                            "matter/default/message",
                            Array(#"{"event":"node_added","data":"#.utf8) + node + [UInt8(ascii: "}")]
                        )
                    ])
                }
                + [
                    FuzzInput.encode([
                        (
                            "matter/default/message",
                            Array(#"{"message_id":"start-1","result":["#.utf8)
                                + Array(nodes.joined(separator: [UInt8(ascii: ",")])) + Array("]}".utf8)
                        )
                    ])
                ]
        case .requests:
            var seeds = devices.flatMap { id in
                commands.map { FuzzInput.encode([("traitbridge/devices/\(id)/set", Array($0.utf8))]) }
            }
            seeds.append(
                FuzzInput.encode([
                    ("traitbridge/bridge/request/rename/1", Array(#"{"device":"ha-plug9","name":"Kettle"}"#.utf8)),
                    ("traitbridge/bridge/request/move/2", Array(#"{"device":"Kettle","room":"Kitchen"}"#.utf8)),
                    (
                        "traitbridge/bridge/request/history/3",
                        Array(
                            (#"{"device":"Kettle","trait":"matter.OnOff","attribute":"onOff","#
                                + #""from":"2026-11-30T08:00:00Z","limit":5}"#).utf8)
                    ),
                    ("traitbridge/bridge/request/history-availability/4", Array(#"{"limit":3}"#.utf8)),
                ]))
            for (folder, operation) in [
                ("google-sync", "sync-import"), ("google-query", "query-import"), ("google-execute", "execute"),
            ] {
                seeds += files(in: folder).map { FuzzInput.encode([("traitbridge/bridge/request/\(operation)/1", $0)]) }
            }
            return seeds
        case .home:
            let light = "z2m-0x00158d0001000001"
            let layout: [(String, String)] = [
                ("home-add", #"{"name": "Cabin"}"#), ("room-add", #"{"name": "Hall"}"#),
                ("zone-add", #"{"name": "Downstairs", "rooms": ["Hall"]}"#),
                ("group-add", #"{"name": "Lamps", "members": ["\#(light)", {"device": "ha-plug9"}]}"#),
                (
                    "scene-add",
                    #"{"name": "Evening", "actions": [{"device": "\#(light)", "trait": "matter.OnOff", "#
                        + #""command": "on"}]}"#
                ),
                ("scene-capture", #"{"name": "Now", "group": "Lamps"}"#),
                ("home-location", #"{"timeZone": "Europe/Berlin", "latitude": 52.5, "longitude": 13.4}"#),
                ("group-command", #"{"group": "Lamps", "trait": "matter.OnOff", "command": "off"}"#),
                ("scene-run", #"{"scene": "Evening"}"#),
                (
                    "automation-add",
                    #"{"name": "Dusk", "triggers": [{"type": "solar", "event": "sunset", "offsetMinutes": -10}], "#
                        + #""conditions": [{"type": "time", "after": "22:00", "before": "06:00"}], "#
                        + #""actions": [{"type": "scene", "scene": "Evening"}], "#
                        + #""end": {"after": 60, "actions": [{"type": "notify", "message": "x"}]}}"#
                ),
                (
                    "automation-add",
                    #"{"name": "Tick", "triggers": [{"type": "timer", "fireDate": "2040-01-01T00:00:00Z", "#
                        + #""recurrence": {"every": 5, "unit": "minutes"}}], "actions": [{"type": "set", "#
                        + #""device": "\#(light)", "trait": "matter.LevelControl", "attribute": "currentLevel", "#
                        + #""value": 128}]}"#
                ),
                ("zone-rename", #"{"zone": "Downstairs", "name": "Ground"}"#), ("room-remove", #"{"room": "Hall"}"#),
                ("home-remove", #"{"home": "Cabin"}"#), ("automation-run", #"{"automation": "dusk"}"#),
            ]
            var seeds = [
                FuzzInput.encode(
                    layout.enumerated().map { ("traitbridge/bridge/request/\($1.0)/\($0)", Array($1.1.utf8)) })
            ]
            seeds += FuzzPaths.files(under: FuzzPaths.repository + "/examples/automations").compactMap {
                (try? FuzzPaths.bytes($0)).map {
                    FuzzInput.encode([("traitbridge/bridge/request/automation-add/1", $0)])
                }
            }
            return seeds
        case .cloudSync: return files(in: "google-sync") + fixture("home-sync.json")
        case .cloudQuery: return files(in: "google-query") + files(in: "google-execute") + fixture("home-query.json")
        case .cloudExecute: return files(in: "google-execute") + files(in: "google-query")
        case .fulfillment:
            let requests = [
                #"{"requestId":"1","inputs":[{"intent":"action.devices.SYNC"}]}"#,
                #"{"requestId":"2","inputs":[{"intent":"action.devices.QUERY","payload":{"devices":[{"id":"z2m-0x00158d0001000001"},{"id":"x"}]}}]}"#,
                #"{"requestId":"3","inputs":[{"intent":"action.devices.EXECUTE","payload":{"commands":[{"devices":"#
                    + #"[{"id":"z2m-0x00158d0001000001"},{"id":"ha-plug9"}],"execution":[{"command":"#
                    + #""action.devices.commands.OnOff","params":{"on":false}}]}]}}]}"#,
                #"{"requestId":"4","inputs":[{"intent":"action.devices.DISCONNECT"}]}"#,
                "client_id=google&redirect_uri=https%3A%2F%2Foauth-redirect.googleusercontent.com%2Fr%2Fp&state=a+b"
                    + "&response_type=code&username=alice&password=pw",
                "0123456789abcdef0123 alice\n# comment\nshort\n",
            ]
            return requests.map { Array($0.utf8) } + files(in: "google-execute")
        case .json:
            return ["google-sync", "google-query", "homeassistant-discovery", "zigbee2mqtt", "shelly"].flatMap(
                files(in:))
        case .mappings:
            return mappingFiles.enumerated().compactMap { index, name in
                let path =
                    name.hasPrefix("generic/")
                    ? FuzzPaths.genericMappings + "/" + name : FuzzPaths.repository + "/mappings/" + name
                return (try? FuzzPaths.bytes(path)).map { [UInt8(index)] + $0 }
            }
        case .config:
            let shipped = FuzzPaths.files(under: FuzzPaths.repository + "/examples").filter { $0.hasSuffix(".json") }
            return [
                #"{"broker":"mqtt://127.0.0.1:1883","prefix":"tb","zigbee2mqtt":{"baseTopic":"z2m","locality":"direct"},"#
                    + #""tasmota":{"stalenessSeconds":60},"shelly":{"enabled":false},"homeAssistant":{"discoveryPrefix":"ha"},"#
                    + #""limits":{"devicesPerSource":100,"messageBytes":4096},"cloudAliases":{"a":"z2m-0x1"},"#
                    + #""tls":{"caFile":null,"insecure":false},"keepAliveSeconds":30,"commandTimeoutSeconds":2.5}"#
            ].map { Array($0.utf8) }
                + shipped.compactMap { try? FuzzPaths.bytes($0) }
        case .registry:
            return FuzzWorld.shared.stored.map { FuzzInput.encode([($0.name, $0.bytes)]) }
        case .cli:
            let world = FuzzWorld.shared
            return [FuzzInput.encode(world.retained.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })]
        case .homekitPairing:
            // Each message: its length, then TLV8 (pair-setup M1 and M3, pair-verify M1, /pairings list and add).
            let messages: [[UInt8]] = [
                [6, 1, 1, 0, 1, 0], [6, 1, 3, 3, 4] + [1, 2, 3, 4] + [4, 64] + [UInt8](repeating: 7, count: 64),
                [6, 1, 1, 3, 32] + [UInt8](repeating: 3, count: 32), [6, 1, 1, 0, 1, 5],
                [6, 1, 1, 0, 1, 3, 1, 1, 65, 3, 32] + [UInt8](repeating: 4, count: 32) + [11, 1, 1],
            ]
            return [messages.flatMap { [UInt8($0.count)] + $0 }]
        case .homekitRequests:
            let body = #"{"characteristics":[{"aid":2,"iid":8,"value":1,"ev":true}]}"#
            let text =
                "GET /characteristics?id=2.8,2.9,1.9,2.99 HTTP/1.1\r\n\r\n"
                + "PUT /characteristics HTTP/1.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
                + "POST /pair-setup HTTP/1.1\r\nContent-Length: 6\r\n\r\n\u{06}\u{01}\u{01}\u{00}\u{01}\u{00}"
            return [Array(text.utf8)]
        case .matterDevice:
            return MatterDeviceInputs.seeds()
        case .matterInteraction:
            return MatterInteractionInputs.seeds()
        case .matterCase:
            return MatterCASEInputs.seeds()
        case .matterTLV:
            return MatterTLVInputs.seeds()
        }
    }

    static func single(_ messages: some Sequence<Message>) -> [[UInt8]] { [FuzzInput.encode(Array(messages))] }

    static func fixture(_ name: String) -> [[UInt8]] {
        (try? FuzzPaths.bytes(FuzzPaths.cloudFixtures + "/" + name)).map { [$0] } ?? []
    }

    /// The raw files of a corpus folder.
    static func files(in folder: String) -> [[UInt8]] {
        guard let corpus = FuzzPaths.sharedCorpus else { return [] }
        return FuzzPaths.files(under: corpus + "/" + folder).compactMap { try? FuzzPaths.bytes($0) }
    }

    /// A corpus folder's captures (`{topic, payload}` or a list of them) as inputs; a file that is
    /// only a payload goes to `defaultTopic`.
    static func messages(in folder: String, defaultTopic: String) -> [[UInt8]] {
        files(in: folder).map { bytes in
            guard let root = try? JSONDocument.parse(bytes).root else {
                return FuzzInput.encode([(defaultTopic, bytes)])
            }
            let captures = root.kind == .array ? root.elements : [root]
            let messages: [Message] = captures.compactMap { capture in
                guard let topic = capture["topic"]?.string, let payload = capture["payload"] else { return nil }
                return (topic, payload.string.map { Array($0.utf8) } ?? payload.value.serializedBytes())
            }
            return messages.isEmpty
                ? FuzzInput.encode([(defaultTopic, bytes)])
                : FuzzInput.encode(Array(messages.prefix(FuzzInput.maximumRecords)))
        }
    }
}
