import Foundation
import TraitBridgeModel
import TraitBridgeStore

/// `TB_BENCH=history make bench`: the history's writer alone — 1 000 000 changes of 1 000 sensors
/// (a temperature each, as the MQTT load sends them), written in batches of 512 as the recorder's
/// thread takes them, to a fresh `history.sqlite`: changes a second, the file's bytes per million
/// changes, and a size prune from 1 million changes down to a quarter of their bytes.
func benchmarkHistory() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-bench-history-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let store = try HistoryStore(directory: folder)
    let devices = try (0..<1_000).map { try DeviceID("z2m-0x00124b\(String(0x10_0000 + $0, radix: 16))") }
    let address = TraitAddress(deviceTypeKey: "temperatureSensor", traitID: .matter("TemperatureMeasurement"))
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    // `TB_N` changes (1 000 000; fewer under callgrind), timed in five slices.
    let total = max(5, Int(ProcessInfo.processInfo.environment["TB_N"] ?? "") ?? 1_000_000)
    let slice = total / 5
    let batchSize = Int(ProcessInfo.processInfo.environment["TB_HISTORY_BATCH"] ?? "") ?? 512
    var batch: [HistoryRecord] = []
    batch.reserveCapacity(batchSize)
    var seconds: [Double] = []
    var written = 0
    var began = nanoseconds()
    for index in 0..<total {
        let value = AttributeValue.int(Int64(1_500 + index / 1_000 % 1_000))
        batch.append(
            HistoryRecord(
                device: devices[index % 1_000], address: address, attribute: "measuredValue",
                at: start + Double(index) / 1_000, change: .value(value)))
        if batch.count == batchSize || index == total - 1 {
            written += try store.write(batch)
            batch.removeAll(keepingCapacity: true)
        }
        if (index + 1) % slice == 0 {
            seconds.append(Double(nanoseconds() - began) / 1e9)
            began = nanoseconds()
        }
    }
    seconds.sort()
    let median = seconds[seconds.count / 2]
    let bytes = try store.usedBytes()
    print("history: \(written) changes written in batches of \(batchSize)")
    print(
        "history: \(String(format: "%.0f", Double(slice) / median)) changes/s (median of 5 × \(slice); "
            + "\(String(format: "%.2f", median * 1e6 / Double(slice))) µs a change)")
    print("history: \(String(format: "%.1f", Double(bytes) / 1_048_576)) MiB for \(total) changes")
    let pruneStart = nanoseconds()
    let pruned = try store.prune(now: start, maxAge: nil, maxBytes: bytes / 4, chunk: 5_000, chunks: 1_000)
    let pruneSeconds = Double(nanoseconds() - pruneStart) / 1e9
    print(
        "history: size prune to a quarter: \(pruned.bySize) changes in \(String(format: "%.2f", pruneSeconds)) s, "
            + "\(String(format: "%.1f", Double(try store.usedBytes()) / 1_048_576)) MiB left")
}

/// `TB_BENCH=history-seed`: a week of history for the scale script's zigbee2mqtt devices, to start
/// `serve` beside (`TIMELINE_HISTORY` in `scripts/bench-scale-timeline.py`): `TB_N` devices (10 000)
/// with the scale script's ids, each a temperature and a trait's connectivity changing every 35
/// minutes over 7 days (288 changes a series, 5.8 million in all), then pruned to the default 256 MiB
/// bound as `serve` keeps it, in `TB_HISTORY_OUT/history.sqlite`.
func seedHistory() throws {
    let environment = ProcessInfo.processInfo.environment
    guard let folder = environment["TB_HISTORY_OUT"] else {
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "set TB_HISTORY_OUT to a folder"])
    }
    let count = Int(environment["TB_N"] ?? "") ?? 10_000
    let store = try HistoryStore(directory: folder)
    let devices = try (0..<count).map { try DeviceID("z2m-0x00158d\(String(format: "%010x", $0 + 1))") }
    let temperature = TraitAddress(deviceTypeKey: "temperatureSensor", traitID: .matter("TemperatureMeasurement"))
    let end = Date()
    let stepSeconds = 35 * 60
    let step = Double(stepSeconds)
    let changes = 7 * 86_400 / stepSeconds
    var batch: [HistoryRecord] = []
    var written = 0
    for round in 0..<changes {
        let at = end - Double(changes - round) * step
        for device in devices {
            batch.append(
                HistoryRecord(
                    device: device, address: temperature, attribute: "measuredValue", at: at,
                    change: .value(.int(Int64(1_800 + round % 2 * 100)))))
            let connectivity = HistoryConnectivity(
                state: round % 2 == 0 ? .online : .offline, locality: .localPeer, reasonCode: "availability",
                reason: "availability topic said so")
            batch.append(
                HistoryRecord(
                    device: device, address: temperature, attribute: "", at: at, change: .connectivity(connectivity)))
            if batch.count >= 16_384 {
                written += try store.write(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
    }
    written += try store.write(batch)
    // As `serve` keeps it: within the default 256 MiB, the oldest gone.
    var pruned = try store.prune(now: end, maxAge: nil, maxBytes: 256 << 20, chunk: 50_000, chunks: 1_000)
    while pruned.isPartial { pruned = try store.prune(now: end, maxAge: nil, maxBytes: 256 << 20, chunks: 1_000) }
    print(
        "history-seed: \(written) changes of \(count) devices over 7 days, the oldest pruned to the bound, "
            + "\(String(format: "%.1f", Double(try store.usedBytes()) / 1_048_576)) MiB in \(store.path)")
}
