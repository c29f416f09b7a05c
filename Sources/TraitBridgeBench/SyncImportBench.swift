import Foundation
import TraitBridgeCloud
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

#if canImport(Glibc)
import Glibc
#endif

/// A generated SYNC response of `count` devices cycling through lights of every kind, plugs,
/// thermostats, locks, fans, blinds, sensors and a speaker (each with attributes and identity).
func generatedSync(count: Int) -> [UInt8] {
    let kinds: [(type: String, traits: [String], attributes: JSONValue)] = [
        ("LIGHT", ["OnOff", "Brightness", "ColorSetting"], ["colorModel": "rgb", "colorTemperatureRange": ["temperatureMinK": 2000, "temperatureMaxK": 6500]]),
        ("LIGHT", ["OnOff", "Brightness", "ColorSetting"], ["colorTemperatureRange": ["temperatureMinK": 2700, "temperatureMaxK": 6500]]),
        ("LIGHT", ["OnOff", "Brightness"], [:]),
        ("OUTLET", ["OnOff"], [:]),
        ("THERMOSTAT", ["TemperatureSetting"], ["availableThermostatModes": ["off", "heat", "cool"], "thermostatTemperatureUnit": "C"]),
        ("LOCK", ["LockUnlock"], [:]),
        ("FAN", ["OnOff", "FanSpeed"], ["supportsFanSpeedPercent": true]),
        ("BLINDS", ["OpenClose"], [:]),
        ("SENSOR", ["TemperatureControl"], ["queryOnlyTemperatureControl": true, "temperatureUnitForUX": "C", "temperatureRange": ["minThresholdCelsius": -20, "maxThresholdCelsius": 60]]),
        ("SPEAKER", ["OnOff", "Volume"], ["volumeMaxLevel": 100, "volumeCanMuteAndUnmute": true]),
    ]
    var devices: [JSONValue] = []
    devices.reserveCapacity(count)
    for index in 0..<count {
        let kind = kinds[index % kinds.count]
        devices.append([
            "id": .string("device-\(index)"), "type": .string("action.devices.types.\(kind.type)"),
            "traits": .array(kind.traits.map { .string("action.devices.traits.\($0)") }),
            "name": ["name": .string("Device \(index)"), "nicknames": [.string("nick \(index)")]],
            "willReportState": true, "roomHint": .string("Room \(index % 40)"), "attributes": kind.attributes,
            "deviceInfo": ["manufacturer": "Bench", "model": .string(kind.type), "swVersion": "1.0"],
            "matterUniqueId": .string("bench-\(index)"), "matterOriginalVendorId": "0xfff1", "matterOriginalProductId": "0x8000",
            "otherDeviceIds": [["deviceId": .string("local-\(index)")]], "customData": ["index": .int(Int64(index))],
        ])
    }
    return JSONValue.object(["requestId": "bench", "payload": ["agentUserId": "bench", "devices": .array(devices)]]).serializedBytes()
}

@_silgen_name("malloc_trim") func mallocTrim(_ pad: Int) -> Int32

/// The process's RSS once malloc has given back what it can (`malloc_trim`), in MB: close to what
/// is alive, not what the process kept mapped.
func heapInUseMegabytes() -> Int {
    _ = mallocTrim(0)
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return -1 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

func peakRSSMegabytes() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
}

/// `TB_BENCH=sync make bench`: importing a 10 000-device SYNC file (translation alone, and into a
/// bridge with rooms and publications), time per round and peak RSS of the process.
func benchmarkSyncImport(mappings: String) throws {
    let catalog = try CatalogLoader.load(mappingsDirectory: mappings)
    let table = try GoogleC2CTable.load(mappingsDirectory: mappings, catalog: catalog)
    let c2c = GoogleC2C(catalog: catalog, table: table)
    let bytes = generatedSync(count: 10_000)
    let before = peakRSSMegabytes()
    print("generated SYNC: 10000 devices, \(bytes.count / 1024) KB; peak RSS before importing \(String(format: "%.0f", before)) MB")
    var translation: [Double] = []
    var whole: [Double] = []
    for _ in 0..<5 {
        let start = nanoseconds()
        let result = try c2c.importSync(bytes, source: "bench", now: Date())
        translation.append(Double(nanoseconds() - start) / 1e9)
        precondition(result.devices.count == 10_000 && result.problems.isEmpty, "the generated SYNC must import cleanly: \(result.problems.prefix(3))")
        var bridge = BridgeState(
            configuration: BridgeConfiguration(brokerDescription: "mqtt://127.0.0.1:1883"),
            catalog: catalog, graph: try HomeGraph(), cloud: table, now: Date())
        _ = bridge.brokerConnected(now: Date())
        let bridgeStart = nanoseconds()
        let effects = bridge.handleMessage(topic: "traitbridge/bridge/request/sync-import/bench", payload: bytes, now: Date())
        whole.append(Double(nanoseconds() - bridgeStart) / 1e9)
        precondition(bridge.graph.devices.count == 10_000 && effects.publications.count > 20_000, "the bridge must hold and publish every device")
    }
    translation.sort()
    whole.sort()
    print(String(format: "SYNC import, 10000 devices: translation %.3f s (median of 5), into a bridge (rooms, registry rows, state + description publications) %.3f s; peak RSS %.0f MB",
                 translation[2], whole[2], peakRSSMegabytes()))
}
