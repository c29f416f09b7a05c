// Release-mode micro-benchmarks (`make bench`). Not run by the tests: timings belong here, never in
// assertions. Each figure is the median of several rounds, reported per operation.
import Foundation
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

#if canImport(Glibc)
    import Glibc
#endif

/// A zigbee2mqtt state payload for an RGBCCT light, as recorded in ../shared/corpus.
let lightPayload = Array(
    #"{"brightness":1,"color":{"hue":0,"saturation":0,"x":0.3,"y":0.31},"color_mode":"color_temp","color_temp":495,"color_temp_startup":65535,"last_seen":"2024-11-23T15:13:46+01:00","linkquality":207,"state":"OFF","update":{"installed_version":385953793,"latest_version":385953793,"state":"idle"}}"#
        .utf8)
/// A climate sensor payload.
let sensorPayload = Array(
    #"{"battery":100,"humidity":48.72,"linkquality":120,"pressure":1008.6,"temperature":21.37,"voltage":3005}"#.utf8)

/// The monotonic clock, in nanoseconds.
func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Runs `body` `iterations` times per round, 7 rounds; returns the median ns per iteration.
func measure(_ name: String, iterations: Int, _ body: () throws -> Int) rethrows {
    var rounds: [Double] = []
    var sink = 0
    for _ in 0..<7 {
        let start = nanoseconds()
        for _ in 0..<iterations { sink &+= try body() }
        rounds.append(Double(nanoseconds() - start) / Double(iterations))
    }
    rounds.sort()
    let median = rounds[3]
    let perSecond = 1e9 / median
    print(
        "\(name.padding(toLength: 58, withPad: " ", startingAt: 0)) \(String(format: "%8.0f", median)) ns/op  \(String(format: "%10.0f", perSecond)) op/s  (sink \(sink % 10))"
    )
}

print("TraitBridgeBench (release), median of 7 rounds")
let onlyBridge = ProcessInfo.processInfo.environment["TB_BENCH"] == "bridge"

if ProcessInfo.processInfo.environment["TB_BENCH"] == "z2mlist" {
    try benchmarkZigbee2MQTTList(mappings: CommandLine.arguments.dropFirst().first ?? "mappings")
    exit(0)
}

if ProcessInfo.processInfo.environment["TB_BENCH"] == "ha" {
    try benchmarkHomeAssistantDiscovery(mappings: CommandLine.arguments.dropFirst().first ?? "mappings")
    exit(0)
}

if ProcessInfo.processInfo.environment["TB_BENCH"] == "discovery" {
    try benchmarkDiscoveryScale(mappings: CommandLine.arguments.dropFirst().first ?? "mappings")
    exit(0)
}

if ProcessInfo.processInfo.environment["TB_BENCH"] == "automations" {
    try benchmarkAutomationScale(mappings: CommandLine.arguments.dropFirst().first ?? "mappings")
    exit(0)
}

if ProcessInfo.processInfo.environment["TB_BENCH"] == "matter" {
    try benchmarkMatterDevice()
    exit(0)
}
if ProcessInfo.processInfo.environment["TB_BENCH"] == "matter-bridge" {
    try benchmarkMatterBridge(mappings: CommandLine.arguments.dropFirst().first ?? "mappings")
    exit(0)
}
if ProcessInfo.processInfo.environment["TB_BENCH"] == "ha-export" {
    try benchmarkHomeAssistantExport(mappings: CommandLine.arguments.dropFirst().first ?? "mappings")
    exit(0)
}
if ProcessInfo.processInfo.environment["TB_BENCH"] == "history-seed" {
    try seedHistory()
    exit(0)
}
if ProcessInfo.processInfo.environment["TB_BENCH"] == "history" {
    try benchmarkHistory()
    exit(0)
}
if ProcessInfo.processInfo.environment["TB_BENCH"] == "sync" {
    try benchmarkSyncImport(mappings: CommandLine.arguments.dropFirst().first ?? "mappings")
    exit(0)
}

if !onlyBridge {
    try measure("parse z2m light payload (274 B) + read state/brightness/color_temp/color.x", iterations: 200_000) {
        let root = try JSONDocument.parse(lightPayload).root
        var score = 0
        if root["state"]?.isString("ON") == true { score += 1 }
        score += Int(root["brightness"]?.int64 ?? 0)
        score += Int(root["color_temp"]?.int64 ?? 0)
        score += Int((root["color"]?["x"]?.double ?? 0) * 100)
        return score
    }

    try measure("parse z2m sensor payload (104 B) + read 4 numbers", iterations: 200_000) {
        let root = try JSONDocument.parse(sensorPayload).root
        let sum = (root["temperature"]?.double ?? 0) + (root["humidity"]?.double ?? 0) + (root["pressure"]?.double ?? 0)
        return Int(sum) + Int(root["battery"]?.int64 ?? 0)
    }

    try measure("parse z2m light payload only", iterations: 200_000) {
        _ = try JSONDocument.parse(lightPayload)
        return 1
    }

    let state: JSONValue = [
        "id": "z2m-0x00158d0001a2b3c4", "name": "Hallway Light",
        "types": [
            "light": [
                "matter.OnOff": ["onOff": true], "matter.LevelControl": ["currentLevel": 254],
                "matter.ColorControl": ["colorTemperatureMireds": 370],
            ]
        ],
        "connectivityState": "online", "dataSourceLocality": "localPeer",
    ]
    measure("serialize a unified state payload (compact)", iterations: 200_000) {
        state.serializedBytes().count
    }

    let level = AttributeMetadata(format: .uint8, unit: .level, minimum: 1, maximum: 254, isWritable: true)
    measure("validate an attribute write against metadata", iterations: 1_000_000) {
        (try? level.validateWrite(.int(128))) == nil ? 0 : 1
    }

    let catalogDirectory = CommandLine.arguments.dropFirst().first ?? "mappings"
    try measure("load and validate the catalog in \(catalogDirectory)", iterations: 20) {
        (try CatalogLoader.load(mappingsDirectory: catalogDirectory)).traits.count
    }

}

// The bridge's hot path without the broker: message → mapping → model → state JSON, on the
// bench's fake network (1000 temperature sensors, as ../shared/bench drives it).
let mappingsDirectory = CommandLine.arguments.dropFirst().first ?? "mappings"
let catalog = try CatalogLoader.load(mappingsDirectory: mappingsDirectory)
let tables = try SourceRegistry.standard.loadTables(mappingsDirectory: mappingsDirectory, catalog: catalog)
// TB_HISTORY=1: the engine makes the history's records too (as `serve` with history on).
var benchConfiguration = BridgeConfiguration(
    brokerDescription: "mqtt://127.0.0.1:1883", sources: [.zigbee2mqtt(locality: .localPeer)])
benchConfiguration.recordsHistory = ProcessInfo.processInfo.environment["TB_HISTORY"] == "1"
var bridge = BridgeState(
    configuration: benchConfiguration, catalog: catalog, tables: tables, graph: try HomeGraph(), now: Date())
_ = bridge.brokerConnected(now: Date())
let sensors: JSONValue = .array(
    (0..<1000).map { index in
        [
            "ieee_address": .string("0x00124b\(String(0x00_0010_0000 + index, radix: 16))"),
            "friendly_name": .string("bench_\(index)"),
            "type": "EndDevice", "power_source": "Battery",
            "definition": [
                "model": "bench", "vendor": "bench",
                "exposes": [
                    ["type": "numeric", "name": "temperature", "property": "temperature", "access": 1, "unit": "°C"],
                    ["type": "numeric", "name": "linkquality", "property": "linkquality", "access": 1],
                ],
            ],
        ]
    })
_ = bridge.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: sensors.serializedBytes(), now: Date())
let topics = (0..<1000).map { "zigbee2mqtt/bench_\($0)" }
let payloads = (0..<100).map { Array("{\"temperature\":\(15 + Double($0) / 7 + 0.01),\"linkquality\":100}".utf8) }
var counter = 0
measure(
    "bridge: sensor message → model → published state (1000 devices)",
    iterations: Int(ProcessInfo.processInfo.environment["TB_ITERATIONS"] ?? "") ?? 100_000
) {
    counter += 1
    let effects = bridge.handleMessage(
        topic: topics[counter % 1000], payload: payloads[(counter / 1000) % 100], now: Date())
    return effects.publications.count
}
