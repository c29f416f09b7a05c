import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// `traitbridge serve` as a real process against a real broker.
@Suite("traitbridge serve", .serialized)
struct ServeCommandTests {
    func startServe(_ broker: MosquittoBroker, data: String, extra: [String] = []) throws -> BridgeProcess {
        try BridgeProcess(
            [
                "serve", "--broker", broker.url, "--data-dir", data,
                "--mappings", CommandRunner.repository + "/mappings", "--log-level", "warning",
            ] + extra,
            log: data + ".log")
    }

    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tb-serve-\(UUID().uuidString)").path
    }

    /// A broker, a client watching `traitbridge/bridge/state`, and `serve` once it said `online`.
    func runningServe(data: String) throws -> (MosquittoBroker, TestMQTTClient, BridgeProcess) {
        let broker = try MosquittoBroker()
        let watcher = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/state"])
        let serve = try startServe(broker, data: data)
        #expect(watcher.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil)
        return (broker, watcher, serve)
    }

    @Test("SIGTERM: publishes offline (retained) and exits 0")
    func gracefulShutdown() throws {
        let data = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let (broker, watcher, serve) = try runningServe(data: data)
        #expect(serve.signal(SIGTERM, waitUpTo: .seconds(10)))
        #expect(serve.exitStatus == 0)
        #expect(watcher.waitFor("traitbridge/bridge/state") { $0.payloadText == "offline" } != nil)
        let late = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/state"])
        #expect(late.waitFor("traitbridge/bridge/state") { $0.payloadText == "offline" && $0.isRetained } != nil)
    }

    @Test("kill -9: the broker publishes the Last Will; the registry kept every device it had announced")
    func lastWill() throws {
        let data = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let (broker, watcher, serve) = try runningServe(data: data)
        let z2m = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/+"])
        let devices =
            #"[{"ieee_address":"0x00158d0001000009","type":"Router","friendly_name":"Porch light","definition":{"exposes":[{"type":"light","features":[{"type":"binary","name":"state","property":"state","access":7,"value_on":"ON","value_off":"OFF"}]}]}}]"#
        try z2m.publish("zigbee2mqtt/bridge/devices", devices)  // not retained: after the restart only the registry knows it
        #expect(z2m.waitFor("traitbridge/devices/z2m-0x00158d0001000009") != nil, "announced, so stored")
        serve.kill()
        #expect(watcher.waitFor("traitbridge/bridge/state") { $0.payloadText == "offline" } != nil)

        let fresh = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/+/state"])
        fresh.messages.removeAll()
        let again = try startServe(broker, data: data)
        defer { again.stop() }
        let state = fresh.waitFor("traitbridge/devices/z2m-0x00158d0001000009/state") { !$0.isRetained }
        #expect(
            state?.payloadText.contains(#""name":"Porch light","connectivityState":"unknown""#) == true,
            "\(state?.payloadText ?? "nothing")")
    }

    @Test(
        "a config file with every key: serve starts with it and comes online under its prefix (no Matter Server)"
    )
    func fullConfig() throws {
        let broker = try MosquittoBroker(.init(users: ["bridge": "pw"]))
        let data = temporaryPath()
        let config = data + ".json"
        let passwordFile = data + ".password"
        defer { for path in [data, config, passwordFile] { try? FileManager.default.removeItem(atPath: path) } }
        try "pw\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        try """
        {"broker": "mqtt://bridge@127.0.0.1:\(broker.port)", "passwordFile": "\(passwordFile)", "clientId": "tb-config-test",
         "protocol": "5", "keepAliveSeconds": 20, "cleanSession": false, "prefix": "home-bridge", "dataDir": "\(data)",
         "mappings": "\(CommandRunner.repository)/mappings", "logLevel": "warning", "commandTimeoutSeconds": 2,
         "zigbee2mqtt": {"baseTopic": "z2m", "instance": "upstairs", "locality": "localPeer", "mainsStalenessSeconds": 300,
                         "batteryStalenessSeconds": 3600, "deviceStalenessSeconds": {"0x00158d0001000002": 7200}},
         "tasmota": {"discoveryPrefix": "tasmota/discovery", "locality": "localPeer", "stalenessSeconds": 600},
         "shelly": {"enabled": true, "locality": "direct", "stalenessSeconds": 600},
         "homeAssistant": {"enabled": true, "discoveryPrefix": "homeassistant", "locality": "localPeer",
                           "stalenessSeconds": 600},
         "matter": {"url": "ws://127.0.0.1:1/ws", "instance": "default", "locality": "localPeer"}}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let watcher = try TestMQTTClient(
            MosquittoBroker.connection(to: broker, user: "bridge", password: "pw"),
            subscribe: ["home-bridge/bridge/state"])
        let serve = try BridgeProcess(
            ["serve", "--config", config], log: data + ".log")
        defer { serve.stop() }
        #expect(watcher.waitFor("home-bridge/bridge/state") { $0.payloadText == "online" } != nil)
    }

    @Test("two zigbee2mqtt networks in one config file: serve reads both, each device from its own list")
    func twoNetworks() throws {
        let broker = try MosquittoBroker()
        let data = temporaryPath()
        let config = data + ".json"
        defer { for path in [data, config] { try? FileManager.default.removeItem(atPath: path) } }
        try """
        {"broker": "mqtt://127.0.0.1:\(broker.port)", "dataDir": "\(data)", "mappings": "\(CommandRunner.repository)/mappings",
         "zigbee2mqtt": [{"baseTopic": "z2m-down"}, {"baseTopic": "z2m-up", "instance": "upstairs"}]}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let client = try TestMQTTClient(BrokerURL(broker.url), subscribe: ["traitbridge/devices/+"])
        func list(_ ieee: String, _ name: String) -> String {
            #"[{"ieee_address":"\#(ieee)","type":"Router","friendly_name":"\#(name)","definition":{"exposes":[{"type":"switch","#
                + #""features":[{"type":"binary","name":"state","property":"state","access":7,"value_on":"ON","value_off":"OFF"}]}]}}]"#
        }
        try client.publish("z2m-down/bridge/devices", list("0x00158d0003000001", "Kitchen plug"), retain: true)
        try client.publish("z2m-up/bridge/devices", list("0x00158d0003000002", "Attic plug"), retain: true)
        let serve = try BridgeProcess(
            ["serve", "--config", config], log: data + ".log")
        defer { serve.stop() }
        let kitchen = client.waitFor("traitbridge/devices/z2m-0x00158d0003000001") {
            $0.payloadText.contains("zigbee2mqtt[default]")
        }
        let attic = client.waitFor("traitbridge/devices/z2m-0x00158d0003000002") {
            $0.payloadText.contains("zigbee2mqtt[upstairs]")
        }
        #expect(kitchen != nil && attic != nil, "both networks' devices are described, each with its instance")
    }

    @Test("a bad broker URL and a bad config file are usage errors that say what to fix")
    func badSettings() throws {
        let url = try CommandRunner.run(["serve", "--broker", "127.0.0.1:1883"])
        #expect(url.exitCode == 2)
        #expect(url.standardError.contains("invalid broker URL '127.0.0.1:1883': missing scheme"))
        let config = temporaryPath() + ".json"
        try #"{"broker": "mqtt://127.0.0.1:1", "zigbee2mqtt": {"basetopic": "z2m"}}"#.write(
            toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let result = try CommandRunner.run(["serve", "--config", config])
        #expect(result.exitCode == 2)
        #expect(
            result.standardError.contains("\(config):1:63: zigbee2mqtt.basetopic: unknown key 'basetopic'"),
            "\(result.standardError)")
        // The source sections share one reader: the same checks and messages for each.
        for (text, message) in [
            (#"{"tasmota": 5}"#, #"tasmota: expected an object {"discoveryPrefix", "locality", "stalenessSeconds"}"#),
            (
                #"{"shelly": {"enable": true}}"#,
                "shelly.enable: unknown key 'enable'; allowed: enabled, locality, stalenessSeconds"
            ),
            (
                #"{"homeAssistant": {"discoveryPrefix": "ha/"}}"#,
                "homeAssistant.discoveryPrefix: expected a non-empty topic prefix without + or # and without a trailing /"
            ),
            (
                #"{"homeAssistant": {"stalenessSeconds": 0}}"#,
                "homeAssistant.stalenessSeconds: expected a whole number of seconds > 0"
            ),
            (
                #"{"zigbee2mqtt": [{"baseTopic": "a"}, {"baseTopic": "b"}]}"#,
                "zigbee2mqtt[1].instance: instance 'default' is used by another zigbee2mqtt section; give each its own"
            ),
            (
                #"{"zigbee2mqtt": [{"baseTopic": "a", "instance": "x"}, {"baseTopic": "a", "instance": "y"}]}"#,
                "zigbee2mqtt[1].baseTopic: baseTopic 'a' is used by another zigbee2mqtt section; give each its own"
            ),
            (#"{"zigbee2mqtt": []}"#, "zigbee2mqtt: expected a zigbee2mqtt section, or a list of them"),
            (#"{"zigbee2mqtt": [7]}"#, "zigbee2mqtt[0]: expected an object with baseTopic, instance, locality"),
            (
                #"{"export": {"include": {"rooms": ["Hall", 3]}}}"#,
                "export.include.rooms[1]: expected a non-empty string"
            ),
            (
                #"{"export": {"exclude": {"room": ["Hall"]}}}"#,
                "export.exclude.room: unknown key 'room'; allowed: ids, rooms, types"
            ),
            (#"{"export": {"only": {}}}"#, "export.only: unknown key 'only'; allowed: include, exclude"),
            (
                #"{"homekit": {"accessoriesPerBridge": 150}}"#,
                "homekit.accessoriesPerBridge: expected a number from 1 to 149 (HAP's limit); "
                    + "more devices make more bridges"
            ),
            (
                #"{"homeAssistantExport": {"discoveryPrefix": "home/#"}}"#,
                "homeAssistantExport.discoveryPrefix: expected Home Assistant's discovery prefix: topic levels without "
                    + "+ or # (its MQTT integration's setting, homeassistant unless changed)"
            ),
            (
                #"{"homeAssistantExport": {"skipSources": "zigbee2mqtt"}}"#,
                "homeAssistantExport.skipSources: expected a list of source instances (\"zigbee2mqtt\") whose devices "
                    + "Home Assistant has already"
            ),
            (
                #"{"homeAssistantExport": {"prefix": "x"}}"#,
                "homeAssistantExport.prefix: unknown key 'prefix'; allowed: enabled, discoveryPrefix, name, "
                    + "skipSources, include, exclude"
            ),
            (
                #"{"history": {"maxAgeDays": 0}}"#,
                "history.maxAgeDays: expected a number of days above 0, at most 3650 (0.5 keeps 12 hours)"
            ),
            (
                #"{"history": {"maxBytes": 1024}}"#,
                "history.maxBytes: expected a whole number of bytes from 1048576 (1 MiB) to 1099511627776 (1 TiB)"
            ),
            (#"{"history": {"enabled": "yes"}}"#, "history.enabled: expected true or false"),
            (#"{"history": {"days": 3}}"#, "history.days: unknown key 'days'; allowed: enabled, maxAgeDays, maxBytes"),
            (#"{"history": true}"#, "history: expected an object with enabled, maxAgeDays, maxBytes"),
            (
                #"{"homekit": {"setupCode": "123-45-678"}}"#,
                "homekit.setupCode: expected eight digits XXX-XX-XXX, not a trivial one (12345678, 11111111…)"
            ),
            (
                #"{"http": {"changeHistory": 15}}"#,
                "http.changeHistory: expected a whole number of device changes from 16 to 1000000"
            ),
            (
                #"{"http": {"stalledClientSeconds": 4}}"#,
                "http.stalledClientSeconds: expected a whole number of seconds from 5 to 3600"
            ),
            (
                #"{"http": {"challenge": {"pinDevices": {"ids": ["a"]}}}}"#,
                "http.challenge: a PIN challenge needs the PIN: give pinFile or pinEnv"
            ),
            (
                #"{"http": {"challenge": {"pinEnv": "TRAITBRIDGE_TEST_NO_SUCH_VARIABLE"}}}"#,
                "http.challenge.pinEnv: environment variable TRAITBRIDGE_TEST_NO_SUCH_VARIABLE is not set"
            ),
            (
                #"{"http": {"challenge": {"pinFile": "\#(config)"}}}"#,  // this very file: not a PIN
                "http.challenge.pinFile: the PIN must be 4 to 16 digits"
            ),
            (#"{"cloudLinks": {}}"#, #"cloudLinks: expected a list of {"name", "url", "tokenFile"}"#),
            (
                #"{"cloudLinks": [{"name": "default", "url": "https://b/smarthome", "tokenEnv": "HOME"}]}"#,
                "cloudLinks[0].name: expected up to 32 lowercase letters, digits and -, not 'default'"
            ),
            (
                #"{"cloudLinks": [{"name": "b", "url": "ftp://b", "tokenEnv": "HOME"}]}"#,
                "cloudLinks[0].url: expected the partner's fulfillment URL, https://host/path"
            ),
            (
                #"{"cloudLinks": [{"name": "b", "url": "https://b/smarthome"}]}"#,
                "cloudLinks[0]: a cloud link needs name, url and tokenFile (or tokenEnv)"
            ),
            (
                #"{"http": {"challenge": {"secureActions": "always"}}}"#,
                #"http.challenge.secureActions: expected "pin", "ack" or "none""#
            ),
            (
                #"{"matter": {"url": "http://127.0.0.1:5580/ws"}}"#,
                "matter.url: expected a WebSocket URL such as ws://127.0.0.1:5580/ws (the Matter Server's default)"
            ),
            (#"{"matter": {"locality": "direct"}}"#, #"matter: "url" is required: ws://127.0.0.1:5580/ws"#),
            (
                #"{"matter": {"url": "ws://a/ws", "server": "x"}}"#,
                "matter.server: unknown key 'server'; allowed: url, instance, locality"
            ),
            (
                #"{"matter": [{"url": "ws://a/ws"}, {"url": "ws://b/ws"}]}"#,
                "matter[1].instance: instance 'default' is used by another matter section; give each its own"
            ),
            (
                #"{"matter": {"url": "ws://a/ws", "instance": "Up Stairs"}}"#,
                "matter.instance: expected a short name of a–z, 0–9 and - (it becomes part of device ids)"
            ),
        ] {
            try text.write(toFile: config, atomically: true, encoding: .utf8)
            let refused = try CommandRunner.run(["serve", "--config", config])
            #expect(refused.exitCode == 2)
            #expect(refused.standardError.contains(message), "\(refused.standardError)")
        }
    }
}
