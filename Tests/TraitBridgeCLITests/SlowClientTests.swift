import AsyncHTTPClient
import Foundation
import Glibc
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// A client of the change stream that stops reading and falls behind what the bridge keeps
/// (`http.changeHistory`): it is told (`event: dropped`) and its stream ends, while the bridge and
/// the other clients go on; resuming from its last event id, it is sent the whole list.
extension FulfillmentTests {
    @Test("a slow client: the bridge keeps going, the client is told it fell behind and dropped, and resumes")
    func slowClientDropped() async throws {
        try await withHome(httpExtra: #""changeHistory": 100,"#) { home in try await slowClient(home) }
    }

    func slowClient(_ home: Home) async throws {
        let count = 1_000
        let z2m = try await addLoadLights(count, to: home)
        let states = try TestMQTTClient(home.broker, subscribe: ["traitbridge/devices/+/state"])
        var heard = -1
        for _ in 0..<60 where states.messages.all.count != heard {
            heard = states.messages.all.count
            try await Task.sleep(for: .seconds(1))
        }
        #expect(states.messages.all.count == heard, "the bridge settles after the lights came")
        let port = try #require(home.base.split(separator: ":").last.flatMap { Int($0) })
        let slow = try StalledReader(
            port: port,
            request: "GET /api/v1/changes?shape=list&source=zigbee2mqtt HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(Self.staticToken)\r\nAccept: text/event-stream\r\n\r\n")
        let head = slow.read(
            until: { text in text.range(of: "event: list").map { text[$0.upperBound...].contains("\n\n") } ?? false },
            within: .seconds(30))
        #expect(head.hasPrefix("HTTP/1.1 200"), "the slow client is subscribed: \(head.prefix(300))")
        #expect(!head.contains("event: dropped"), "it had kept up so far")

        // The slow client reads nothing more while every light changes (each change is the whole list
        // of 1 003 devices to it: far more than the sockets hold); the bridge goes on.
        let before = states.messages.all.count
        for index in 0..<count {
            try z2m.publish("zigbee2mqtt/Load light \(index)/availability", "offline", retain: true)
        }
        func offline() -> Int {
            Set(
                states.messages.all.dropFirst(before).filter {
                    $0.payloadText.contains(#""connectivityState":"offline""#)
                }
                .map(\.topic)
            ).count
        }
        #expect(
            eventually(timeout: .seconds(120)) { offline() == count },
            "the bridge did not wait for the slow client: it published \(offline()) of \(count) changes")

        // It reads again: what was on its way, then why its stream ends, and the end of the response.
        let rest = slow.read(until: { $0.hasSuffix("\r\n0\r\n\r\n") }, within: .seconds(60))
        #expect(rest.hasSuffix("\r\n0\r\n\r\n"), "the bridge ended the slow client's stream: \(rest.suffix(300))")
        let events = rest.components(separatedBy: "\n\n").filter { $0.contains("event: ") }
        let last = events.last ?? ""
        #expect(last.contains("event: dropped") && last.contains("fell behind"), "told why: \(last.prefix(300))")
        let lists = events.filter { $0.contains("event: list") }.count
        #expect(lists > 0, "it had some of the lists: \(lists)")
        let droppedAt = try #require(
            last.firstMatch(of: /id: (\d+)/).flatMap { Int($0.1) }, "the drop names the last event it had")

        // Resuming from there, it is older than the 100 changes kept: the whole list comes first.
        let resumed = SSEClient(home, "?shape=stream&source=zigbee2mqtt", lastEventID: droppedAt)
        #expect(eventually(timeout: .seconds(30)) { !resumed.events.all.isEmpty })
        let first = resumed.events.all.first
        #expect(first?.event == "list", "a client too far behind gets the list: \(first?.event ?? "nothing")")
        let listed = (first?.json["devices"] as? [[String: Any]]) ?? []
        let offlineListed = listed.filter { $0["connectivityState"] as? String == "offline" }.count
        #expect(offlineListed >= count, "the list is today's: \(offlineListed) offline")
        resumed.close()
    }
}

extension FulfillmentTests {
    @Test("a client that stops reading for good is closed after http.stalledClientSeconds, over SSE and WebSocket")
    func stalledClientClosed() async throws {
        try await withHome(httpExtra: #""changeHistory": 100000, "stalledClientSeconds": 5,"#) { home in
            let z2m = try await addLoadLights(1_000, to: home)
            let port = try #require(home.base.split(separator: ":").last.flatMap { Int($0) })
            let query = "?shape=list&source=zigbee2mqtt"
            let auth = "Authorization: Bearer \(Self.staticToken)\r\n"
            let sse = try StalledReader(
                port: port, request: "GET /api/v1/changes\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)\r\n")
            let socket = try StalledReader(
                port: port,
                request: "GET /api/v1/changes/socket\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)"
                    + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
            // Neither reads a byte while one light changes 40 times, 150 ms apart: each change is the
            // whole list of 1 003 devices to both (13 MB, far more than the sockets hold), never more
            // changes than the bridge keeps (so neither is dropped for falling behind).
            for round in 0..<40 {
                try z2m.publish("zigbee2mqtt/Load light 0/availability", round % 2 == 0 ? "offline" : "online")
                try await Task.sleep(for: .milliseconds(150))
            }
            try await Task.sleep(for: .seconds(15))
            let sseText = sse.read(until: { _ in false }, within: .seconds(60))
            let socketText = socket.read(until: { _ in false }, within: .seconds(60))
            #expect(sseText.hasPrefix("HTTP/1.1 200") && socketText.hasPrefix("HTTP/1.1 101"), "both were served")
            #expect(sse.closed && socket.closed, "the bridge closed both connections")
            #expect(!sseText.hasSuffix("\r\n0\r\n\r\n"), "cut off, not a stream that ended")
            // The bridge goes on: a new client gets the list at once.
            let fresh = SSEClient(home, query)
            #expect(eventually(timeout: .seconds(30)) { fresh.events.all.first?.event == "list" })
            fresh.close()
        }
    }
}

/// A raw loopback TCP client with a 4 KB receive buffer that reads only when told to: the slow
/// client no HTTP library would let a test be.
final class StalledReader {
    private let socket: Int32
    /// The server closed the connection (a read found its end).
    private(set) var closed = false

    init(port: Int, request: String) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        var size: Int32 = 4096
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            throw POSIXError(.ECONNREFUSED)
        }
        let bytes = Array(request.utf8)
        guard send(socket, bytes, bytes.count, 0) == bytes.count else {
            close(socket)
            throw POSIXError(.EPIPE)
        }
    }

    deinit { close(socket) }

    /// Reads until `done` says so of what was read, the connection ends, or `within` has passed.
    func read(until done: (String) -> Bool, within: Duration) -> String {
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + within
        var buffer = [UInt8](repeating: 0, count: 65536)
        while ContinuousClock.now < deadline {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 200) > 0 else { continue }
            let got = recv(socket, &buffer, buffer.count, 0)
            if got <= 0 {
                closed = got == 0
                break
            }
            bytes += buffer[0..<got]
            if done(String(decoding: bytes, as: UTF8.self)) { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
