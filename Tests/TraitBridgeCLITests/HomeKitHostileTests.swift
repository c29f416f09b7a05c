import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeTesting

/// Hostile input at the HomeKit server of a running `serve` (loopback, not announced): malformed
/// requests and pairing messages, oversized heads and bodies, 10 000 connections at once. Each is
/// refused or closed, and the bridge goes on answering.
@Suite("HomeKit server under hostile input", .serialized)
struct HomeKitHostileTests {
    @Test("bad TLV, bad HTTP, oversized requests and 10 000 connections never stop the HomeKit server")
    func hostile() throws {
        let broker = try MosquittoBroker()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-hk-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config.json").path
        try Data(#"{"homekit": {"listen": "127.0.0.1", "port": 0, "connectionLimit": 16}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        let log = folder.appendingPathComponent("serve.log").path
        let serve = try BridgeProcess(
            [
                "serve", "--broker", broker.url, "--config", config, "--data-dir",
                folder.appendingPathComponent("data").path,
            ], log: log)
        defer { serve.stop() }
        var port = 0
        #expect(
            eventually(timeout: .seconds(15)) {
                let line = LogFile.read(log).split(separator: "\n").first { $0.contains("HomeKit: bridge") } ?? ""
                port = line.split(separator: "127.0.0.1:").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
                return port > 0
            }, "\(LogFile.read(log))")
        func exchange(_ request: String, until: String = "\r\n\r\n") throws -> (reply: String, closed: Bool) {
            let client = try StalledReader(port: port, request: request)
            let reply = client.read(until: { $0.contains(until) }, within: .seconds(5))
            return (reply, client.closed)
        }
        let unverified = try exchange("GET /accessories HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(unverified.reply.hasPrefix("HTTP/1.1 470"), "\(unverified.reply)")
        // A truncated TLV, and a pairing message in no state: refused, the connection answered.
        let truncated = try exchange("POST /pair-setup HTTP/1.1\r\nContent-Length: 3\r\n\r\n\u{06}\u{09}\u{01}")
        #expect(truncated.reply.hasPrefix("HTTP/1.1 400"), "\(truncated.reply)")
        let stateless = try exchange("POST /pair-setup HTTP/1.1\r\nContent-Length: 3\r\n\r\n\u{06}\u{01}\u{09}")
        #expect(
            stateless.reply.hasPrefix("HTTP/1.1 200") && stateless.reply.contains("\u{07}\u{01}\u{01}"),
            "an error TLV (unknown): \(Array(stateless.reply.utf8))")
        // Not HTTP, a head that never ends, a body over the bound: 400, then closed.
        for request in [
            "GARBAGE\r\n\r\n", String(repeating: "X", count: 9000),
            "PUT /characteristics HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n",
            "POST /pair-verify HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
        ] {
            let refused = try StalledReader(port: port, request: request)
            let reply = refused.read(until: { _ in false }, within: .seconds(5))
            #expect(reply.hasPrefix("HTTP/1.1 400") && refused.closed, "\(request.prefix(40)): \(reply)")
        }
        // 10 000 connections at once (none sends a byte), from a process of their own (scripts/connection-
        // flood.py: this one keeps few descriptors): the server admits what it can, closes the rest or the
        // oldest unverified, and a new connection is still answered.
        let floodLog = folder.appendingPathComponent("flood.log").path
        let flood = try ChildProcess(
            [
                "/usr/bin/env", "python3", CommandRunner.repository + "/scripts/connection-flood.py", "127.0.0.1",
                String(port), "10000", "60",
            ], logFile: floodLog)
        defer { flood.stop() }
        #expect(
            eventually(timeout: .seconds(30)) { LogFile.read(floodLog).contains(#"{"opened": 10000}"#) },
            "the flood could open its sockets: \(LogFile.read(floodLog))")
        let flooded = ContinuousClock.now
        var after = ""
        #expect(
            eventually(timeout: .seconds(20)) {
                after = (try? exchange("GET /accessories HTTP/1.1\r\n\r\n").reply) ?? ""
                return after.hasPrefix("HTTP/1.1 470")
            }, "answered after the flood: \(after)")
        let answeredAfter = ContinuousClock.now - flooded
        flood.stop()
        let established = LogFile.read(floodLog).split(separator: "\n").last { $0.contains("established") } ?? ""
        #expect(!established.isEmpty, "the flood says how many the server accepted: \(LogFile.read(floodLog))")
        print("HomeKit: 10 000 connections \(established); a new connection answered after \(answeredAfter)")
        #expect(serve.isRunning, "\(LogFile.read(log).suffix(2000))")
        // SIGTERM right after a flood that ended by itself (its connections still being accepted):
        // serve stops with status 0 and no crash (it trapped here: NIO dropped the queued connections).
        let last = try ChildProcess(
            [
                "/usr/bin/env", "python3", CommandRunner.repository + "/scripts/connection-flood.py", "127.0.0.1",
                String(port), "10000", "1",
            ], logFile: folder.appendingPathComponent("flood2.log").path)
        defer { last.stop() }
        #expect(last.reap(within: .seconds(60)), "the second flood ends by itself")
        #expect(serve.stop(within: .seconds(30)), "serve stops cleanly right after a flood")
    }
}
