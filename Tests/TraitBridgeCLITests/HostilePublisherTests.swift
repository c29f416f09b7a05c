import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMQTT
import TraitBridgeModel
import TraitBridgeStore
import TraitBridgeTesting

/// Everything anyone on a shared broker can publish, sent to a real `serve` on a real mosquitto:
/// every topic family of every source and the bridge's own topics, payloads of every wrong kind,
/// retained and not; then 50 000 unique Shelly ids; then a restart with all of it still retained.
@Suite("Hostile publisher against a real serve", .serialized)
struct HostilePublisherTests {
    /// The devices made known first, one per source, with the topics that describe them.
    static let tasmotaConfig =
        #"{"ip":"127.0.0.1","dn":"Plug","fn":["Plug",null],"hn":"plug","mac":"A4CF12345678","md":"Generic","ofln":"Offline","onln":"Online","state":["OFF","ON","TOGGLE","HOLD"],"sw":"13.3.0","t":"plug","ft":"%prefix%/%topic%/","tp":["cmnd","stat","tele"],"rl":[1,0],"lt_st":0,"ver":1}"#
    static let haConfig =
        #"{"~":"plug9","stat_t":"~/state","val_tpl":"{{ value_json.power }}","cmd_t":"~/set","avty_t":"~/avail","uniq_id":"plug9_relay","dev":{"ids":["plug9"],"name":"Plug"}}"#
    static let z2mDevices =
        #"[{"ieee_address":"0x00158d0001000001","type":"Router","friendly_name":"Hall light","definition":{"exposes":[{"type":"light","features":[{"type":"binary","name":"state","property":"state","access":7,"value_on":"ON","value_off":"OFF"},{"type":"numeric","name":"brightness","property":"brightness","access":7,"value_min":0,"value_max":254}]}]}}]"#
    static let setup: [(String, String)] = [
        ("zigbee2mqtt/bridge/state", #"{"state":"online"}"#), ("zigbee2mqtt/bridge/devices", z2mDevices),
        ("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":100}"#),
        ("tasmota/discovery/A4CF12345678/config", tasmotaConfig), ("tele/plug/LWT", "Online"),
        (
            "shellies/announce",
            #"{"id":"shelly1-aabbcc","model":"SHSW-1","mac":"8CAAB5AABBCC","ip":"127.0.0.1","fw_ver":"v1.12"}"#
        ),
        ("shellies/shelly1-aabbcc/relay/0", "off"),
        (
            "garage/events/rpc",
            #"{"src":"shellyplus1-aabbccddeeff","method":"NotifyFullStatus","params":{"switch:0":{"id":0,"output":false}}}"#
        ),
        ("homeassistant/switch/plug9/relay/config", haConfig), ("plug9/avail", "online"),
    ]
    static let known = [
        "z2m-0x00158d0001000001", "tasmota-a4cf12345678", "shelly-shelly1-aabbcc", "shelly-shellyplus1-aabbccddeeff",
        "ha-plug9",
    ]
    /// The source's own removals: not hostile, so not sent.
    static let removals: Set<String> = [
        "tasmota/discovery/A4CF12345678/config", "homeassistant/switch/plug9/relay/config",
    ]

    static let topics = [
        "zigbee2mqtt/bridge/devices", "zigbee2mqtt/bridge/state", "zigbee2mqtt/Hall light",
        "zigbee2mqtt/Hall light/availability",
        "zigbee2mqtt/bridge/event", "zigbee2mqtt/unknown device",
        "tasmota/discovery/A4CF12345678/config", "tasmota/discovery/A4CF12345678/sensors", "tasmota/discovery/0/config",
        "stat/plug/RESULT", "stat/plug/POWER", "tele/plug/STATE", "tele/plug/SENSOR", "tele/plug/LWT",
        "shellies/announce", "shellies/shelly1-aabbcc/relay/0", "shellies/shelly1-aabbcc/relay/0/power",
        "shellies/shelly1-aabbcc/online",
        "shellies/shelly1-aabbcc/light/0/status", "garage/events/rpc", "garage/status/switch:0", "garage/online",
        "homeassistant/switch/plug9/relay/config", "homeassistant/light/other/config", "homeassistant/device/z/config",
        "plug9/state", "plug9/avail",
        "traitbridge/devices/z2m-0x00158d0001000001/set", "traitbridge/devices/nobody/set",
        "traitbridge/bridge/request/rename/h1",
        "traitbridge/bridge/request/move/h2", "traitbridge/bridge/request/sync-import/h3",
        "traitbridge/bridge/request/query-import/h4",
        "traitbridge/bridge/request/execute/h5", "traitbridge/bridge/request/unknown/h6",
        "traitbridge/devices/z2m-0x00158d0001000001",
    ]

    static let payloads: [[UInt8]] = {
        var list = [
            "1e19", "-1e19", "1e300", "1e400", "-1e400", "inf", "-inf", "nan", "NaN", "Infinity", "-0",
            "9223372036854775808", "\"nan\"", "\"inf\"", "\"-Infinity\"", "\"1e400\"",
            #"{"state":"nan","brightness":"inf","power":"1e400","temperature":"NaN"}"#,
            "{}", "[]", "null", "true", "\"x\"", "[{}]", "[null]", "on", "{not json", "\u{0}", " ", "nan,0,0",
            "inf,inf,inf",
            #"{"state":1e400,"brightness":-1e400}"#, #"{"POWER":1e19,"HSBColor":"nan,0,0"}"#,
            #"{"id":1e19,"src":1e19}"#,
            #"{"src":"x","method":"NotifyFullStatus","params":{"switch:0":{"id":1e400,"apower":1e400,"output":1e400}}}"#,
            #"{"id":"c","trait":"matter.LevelControl","attribute":"currentLevel","value":1e300}"#,
            #"{"device":"z2m-0x00158d0001000001","name":"","room":1e400}"#,
            #"{"payload":{"devices":[{"id":"x","type":"action.devices.types.LIGHT","traits":1e400}]}}"#,
        ].map { Array($0.utf8) }
        list.append([0xFF, 0xFE, 0xC3, 0x28])
        list.append(Array(repeating: UInt8(ascii: "["), count: 100_000))
        list.append(
            Array(repeating: UInt8(ascii: "{"), count: 5_000) + Array(repeating: UInt8(ascii: "}"), count: 5_000))
        return list
    }()
    /// 1 MB payloads go to one topic per family (they are 70 MB of traffic on every topic).
    static let huge: [[UInt8]] = [
        Array(repeating: UInt8(ascii: "x"), count: 1_048_576),
        Array("{\"a\":\"".utf8) + Array(repeating: UInt8(ascii: "y"), count: 1_000_000) + Array("\"}".utf8),
    ]
    static let hugeTopics = [
        "zigbee2mqtt/bridge/devices", "zigbee2mqtt/Hall light", "stat/plug/RESULT", "garage/events/rpc",
        "homeassistant/light/other/config", "traitbridge/bridge/request/sync-import/h7",
    ]

    func placementChecks(_ observer: TestMQTTClient, _ label: String) {
        for id in Self.known {
            let state = observer.waitFor("traitbridge/devices/\(id)/state") {
                $0.payloadText.contains(#""name":"Kept \#(id)""#)
            }
            #expect(
                state != nil,
                "\(label): \(id) kept its name: \(observer.waitFor("traitbridge/devices/\(id)/state", timeout: .zero)?.payloadText.prefix(200) ?? "no state")"
            )
            let description = observer.waitFor("traitbridge/devices/\(id)") {
                $0.payloadText.contains(#""room":"Attic""#)
            }
            #expect(description != nil, "\(label): \(id) kept its room")
        }
    }

    /// Every retained `<prefix>/devices/<id>` on the broker now (marker-complete).
    func retainedDevices(_ broker: MosquittoBroker) throws -> Set<String> {
        let marker = "traitbridge-test/marker-\(UUID().uuidString)"
        let reader = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/+", marker])
        try reader.publish(marker, "x")
        #expect(reader.waitFor(marker, timeout: .seconds(30)) != nil)
        return Set(
            reader.messages.all.filter { $0.isRetained && !$0.payload.isEmpty && $0.topic != marker }
                .map { String($0.topic.dropFirst("traitbridge/devices/".count)) })
    }

    @Test(
        "hostile payloads on every topic, retained and not, a 50 000-id Shelly flood, a restart: alive, nothing lost, registry = broker"
    )
    func hostilePublisher() throws {
        let broker = try MosquittoBroker()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-hostile-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try
            #"{"broker": "\#(broker.url)", "dataDir": "\#(folder)/data", "mappings": "\#(CommandRunner.repository)/mappings", "logLevel": "warning", "limits": {"devicesPerSource": 1000}}"#
            .write(toFile: folder + "/serve.json", atomically: true, encoding: .utf8)
        var serve = try BridgeProcess(
            ["serve", "--config", folder + "/serve.json"], log: folder + "/serve.log"
        )
        defer { serve.stop() }
        let observer = try TestMQTTClient(broker, subscribe: ["traitbridge/#"])
        #expect(observer.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil)
        let publisher = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/response/#"])
        for (topic, payload) in Self.setup { try publisher.publish(topic, payload, retain: true) }
        for id in Self.known {
            #expect(observer.waitFor("traitbridge/devices/\(id)/state") != nil, "\(id) is published")
            try publisher.publish(
                "traitbridge/bridge/request/rename/r-\(id)", #"{"device":"\#(id)","name":"Kept \#(id)"}"#)
            try publisher.publish("traitbridge/bridge/request/move/m-\(id)", #"{"device":"\#(id)","room":"Attic"}"#)
        }
        placementChecks(observer, "before")

        // Every wrong payload on every topic, retained and not.
        var sent = 0
        for retain in [false, true] {
            for topic in Self.topics {
                for payload in Self.payloads + (Self.hugeTopics.contains(topic) ? Self.huge : []) {
                    if payload.isEmpty && Self.removals.contains(topic) { continue }
                    if topic == "zigbee2mqtt/bridge/devices" && payload == Array("[]".utf8) { continue }  // a whole list: removes all
                    try publisher.publish(topic, bytes: payload, retain: retain)
                    sent += 1
                }
                if retain && !Self.removals.contains(topic) { try publisher.publish(topic, bytes: [], retain: true) }  // empty retained
            }
        }
        // The bridge handles messages in order: once this is answered, all of the above was handled.
        try publisher.publish(
            "traitbridge/bridge/request/rename/after",
            #"{"device":"z2m-0x00158d0001000001","name":"Kept z2m-0x00158d0001000001"}"#)
        #expect(publisher.waitFor("traitbridge/bridge/response/rename/after", timeout: .seconds(120)) != nil)
        #expect(sent > 2_500)
        #expect(serve.isRunning, "alive after \(sent) hostile messages")
        placementChecks(observer, "after the hostile payloads")

        // 50 000 unique Shelly ids: the per-source limit (1000) holds and is counted.
        for index in 0..<50_000 {
            try publisher.client.publish("shellies/flood-\(index)/relay/0", payload: Array("on".utf8), qos: 0)
        }
        try publisher.publish(
            "traitbridge/bridge/request/rename/flooded", #"{"device":"ha-plug9","name":"Kept ha-plug9"}"#)
        #expect(publisher.waitFor("traitbridge/bridge/response/rename/flooded", timeout: .seconds(120)) != nil)
        let health = observer.waitFor("traitbridge/bridge/health", timeout: .seconds(10)) { message in
            let json = try? JSONDocument.parse(message.payload).root
            return (json?["refused"]?["devicesPerSource"]?.int64 ?? 0) >= 45_000
        }
        let healthJSON = try #require(
            health.flatMap { try? JSONDocument.parse($0.payload).root }, "the refusals are counted on bridge/health")
        #expect(healthJSON["devices"]?["shelly"]?.int64 == 1000, "\(health?.payloadText ?? "")")
        #expect(healthJSON["limits"]?["devicesPerSource"]?.int64 == 1000)
        let peak = Self.peakMemoryMB(serve.pid)
        #expect(peak < 600, "serve's peak RSS stayed bounded: \(peak) MB")
        #expect(serve.isRunning)

        // A restart with every hostile message still retained on the broker.
        #expect(serve.signal(SIGTERM, waitUpTo: .seconds(20)))
        observer.messages.removeAll()
        serve = try BridgeProcess(
            ["serve", "--config", folder + "/serve.json"],
            log: folder + "/serve2.log")
        #expect(observer.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil)
        try publisher.publish(
            "traitbridge/bridge/request/rename/restarted", #"{"device":"ha-plug9","name":"Kept ha-plug9"}"#)
        #expect(publisher.waitFor("traitbridge/bridge/response/rename/restarted", timeout: .seconds(120)) != nil)
        #expect(serve.isRunning, "alive after a restart among the retained hostile messages")
        placementChecks(observer, "after the restart")

        // The registry and the broker agree.
        #expect(serve.signal(SIGTERM, waitUpTo: .seconds(20)))
        let registry = Set(try DeviceStore(directory: folder + "/data").all().map(\.id.rawValue))
        let retained = try retainedDevices(broker)
        #expect(
            Set(Self.known).subtracting(registry).isEmpty,
            "missing from the registry: \(Set(Self.known).subtracting(registry).sorted())")
        #expect(
            registry.count == retained.count && registry == retained,
            "registry only: \(registry.subtracting(retained).sorted().prefix(5)); broker only: \(retained.subtracting(registry).sorted().prefix(5))"
        )
    }

    /// VmHWM of a process, in MB (0 when it cannot be read).
    static func peakMemoryMB(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }
}
