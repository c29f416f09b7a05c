import Foundation
import NIOHTTP1
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// `/healthz`, `/readyz` and `/metrics` on `serve`'s listener, asked by a real HTTP client; the
/// metrics read by Prometheus's own text-format parser (Debian's python3-prometheus-client).
@Suite("operations: health, readiness and metrics over HTTP", .serialized)
struct OperationsTests {
    let fulfillment = FulfillmentTests()

    /// Every sample of an exposition, parsed by `prometheus_client.parser`: name, labels, value.
    func parsed(_ text: String) throws -> [(name: String, labels: [String: String], value: Double)] {
        let script = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            out = []
            for family in text_string_to_metric_families(sys.stdin.read()):
                for sample in family.samples:
                    out.append([sample.name, sample.labels, sample.value])
            print(json.dumps(out))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the parser refused the exposition: \(problem)")
        let rows = try #require(try JSONSerialization.jsonObject(with: data) as? [[Any]])
        return rows.compactMap { row in
            guard row.count == 3, let name = row[0] as? String, let labels = row[1] as? [String: String],
                let value = row[2] as? Double
            else { return nil }
            return (name, labels, value)
        }
    }

    func value(
        _ samples: [(name: String, labels: [String: String], value: Double)], _ name: String,
        _ labels: [String: String] = [:]
    ) -> Double? {
        samples.first { sample in
            sample.name == name && labels.allSatisfy { key, value in sample.labels[key] == value }
        }?.value
    }

    @Test("healthz answers; metrics carry the scenario's counts; readyz turns false with the broker and back")
    func operations() async throws {
        try await fulfillment.withHome { home in
            let health = try await fulfillment.send(home, .GET, "/healthz")
            #expect(health.status == 200 && health.body == "ok\n")
            let ready = try await fulfillment.send(home, .GET, "/readyz")
            #expect(ready.status == 200, "\(ready.body)")
            #expect(ready.json["ready"] as? Bool == true && ready.json["broker"] as? String == "up")

            // A command the Hall light never echoes: it ends `assumed` after the 2 s timeout.
            let app = try TestMQTTClient(home.broker, subscribe: ["traitbridge/devices/+/set/result"])
            try app.publish(
                "traitbridge/devices/z2m-0x00158d0001000001/set",
                #"{"id":"m1","trait":"matter.OnOff","command":"on"}"#)
            #expect(app.waitFor("traitbridge/devices/z2m-0x00158d0001000001/set/result") { _ in true } != nil)

            let metrics = try await fulfillment.send(home, .GET, "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            let samples = try parsed(metrics.body)
            #expect((value(samples, "traitbridge_mqtt_messages_received_total") ?? 0) >= 4, "list, two states, set")
            #expect((value(samples, "traitbridge_mqtt_messages_published_total") ?? 0) > 0)
            #expect(value(samples, "traitbridge_source_devices", ["source": "zigbee2mqtt"]) == 3)
            #expect((value(samples, "traitbridge_source_messages_received_total", ["source": "zigbee2mqtt"]) ?? 0) >= 3)
            #expect((value(samples, "traitbridge_devices", ["connectivity": "offline"]) ?? 0) >= 1, "the Relay")
            #expect(value(samples, "traitbridge_commands_total", ["outcome": "assumed"]) == 1)
            #expect(value(samples, "traitbridge_command_duration_seconds_count") == 1)
            #expect((value(samples, "traitbridge_message_handling_seconds_count") ?? 0) >= 4)
            #expect(value(samples, "traitbridge_limit_refusals_total", ["limit": "messageBytes"]) == 0)
            #expect(value(samples, "traitbridge_broker_connected") == 1)
            #expect(value(samples, "traitbridge_mqtt_connects_total") == 1)
            #expect((value(samples, "traitbridge_resident_memory_bytes") ?? 0) > 1_000_000)
            let build = samples.first { $0.name == "traitbridge_build_info" }
            #expect(build?.value == 1 && build?.labels["commit"]?.isEmpty == false)
            // The history's writer: the home's first changes stored within its 5 s, its file's bytes.
            #expect(
                await eventuallyAsync {
                    let text = (try? await fulfillment.send(home, .GET, "/metrics"))?.body ?? ""
                    guard let samples = try? parsed(text) else { return false }
                    return (value(samples, "traitbridge_history_changes_total", ["outcome": "stored"]) ?? 0) > 0
                        && (value(samples, "traitbridge_history_bytes") ?? 0) > 0
                        && value(samples, "traitbridge_history_changes_total", ["outcome": "dropped"]) == 0
                }, "the history's changes and bytes on /metrics")

            home.broker.stop()
            #expect(
                await eventuallyAsync { (try? await fulfillment.send(home, .GET, "/readyz"))?.status == 503 },
                "not ready while the broker is away")
            let away = try await fulfillment.send(home, .GET, "/readyz")
            #expect(away.json["ready"] as? Bool == false && away.json["broker"] as? String != "up")
            try home.broker.restart()
            #expect(
                await eventuallyAsync { (try? await fulfillment.send(home, .GET, "/readyz"))?.status == 200 },
                "ready again once the broker is back")
            let again = try parsed(try await fulfillment.send(home, .GET, "/metrics").body)
            #expect((value(again, "traitbridge_mqtt_connects_total") ?? 0) >= 2)
            #expect((value(again, "traitbridge_mqtt_disconnects_total") ?? 0) >= 1)
        }
    }

    /// Polls `condition` every 100 ms for up to 20 s.
    func eventuallyAsync(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<200 {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}
