import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeTesting

#if canImport(Glibc)
    import Glibc
#endif

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
        let serve = try ChildProcess(
            [
                CommandRunner.executable.path, "serve", "--broker", broker.url, "--config", config, "--data-dir",
                folder.appendingPathComponent("data").path,
            ], logFile: log)
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
        // 10 000 connections at once (none sends a byte): the server admits what it can, closes the rest
        // or the oldest unverified, and a new connection is still answered.
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        for _ in 0..<10_000 {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { break }
            sockets.append(socket)
            _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)  // the kernel finishes each handshake
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        #expect(sockets.count == 10_000, "the test could open \(sockets.count) sockets")
        let flooded = ContinuousClock.now
        var after = ""
        #expect(
            eventually(timeout: .seconds(20)) {
                after = (try? exchange("GET /accessories HTTP/1.1\r\n\r\n").reply) ?? ""
                return after.hasPrefix("HTTP/1.1 470")
            }, "answered after the flood: \(after)")
        var polls = sockets.map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
        _ = poll(&polls, nfds_t(polls.count), 0)
        let established = polls.filter { $0.revents & Int16(POLLOUT) != 0 }.count
        print(
            "HomeKit: \(established) of 10 000 handshakes done; a new connection answered after "
                + "\(ContinuousClock.now - flooded)"
        )
        #expect(serve.isRunning, "\(LogFile.read(log).suffix(2000))")
    }
}
