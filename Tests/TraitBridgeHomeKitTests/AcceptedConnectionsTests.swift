import NIOCore
import NIOPosix
import Testing
import TraitBridgeTesting

@testable import TraitBridgeHomeKit

/// What the HAP server holds between accepting a connection and serving it, on real loopback
/// sockets: a connection no task took is finished and closed when the server ends, so none is ever
/// released unfinished (which traps the process); one accepted after the end is closed unwrapped.
@Suite("Accepted HAP connections")
struct AcceptedConnectionsTests {
    static func connect(to port: Int) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port).get()
    }

    @Test(
        "the server's end closes what no task took; a taken one is the task's; a late one is closed at once")
    func closeRest() throws {
        // Off the cooperative pool, which the suite's synchronous tests may hold for minutes on two cores.
        try runOffThePool("accepted-connections-test", within: .seconds(60)) { try await Self.acceptServeAndEnd() }
    }

    static func acceptServeAndEnd() async throws {
        let accepted = AcceptedConnections()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0) { child in
                child.eventLoop.makeCompletedFuture { try accepted.accept(child) }
            }
        let port = try #require(server.channel.localAddress?.port)
        let clients = [try await Self.connect(to: port), try await Self.connect(to: port)]
        try await server.executeThenClose { inbound in
            var connections = inbound.makeAsyncIterator()
            let served = try #require(try await connections.next())
            let queued = try #require(try await connections.next())
            // Each child's initializer runs on its own event loop, so the stream may yield the two in
            // either order: each server end is paired with its client by port.
            let servedPort = try #require(served.channel.remoteAddress?.port)
            let servedClient = try #require(clients.first { $0.localAddress?.port == servedPort })
            let queuedClient = try #require(clients.first { $0 !== servedClient })
            #expect(accepted.take(served), "handed to a task")
            #expect(!accepted.take(served), "taken once")

            #expect(await accepted.closeRest() == 1, "the queued one was still held")
            #expect(!queued.channel.isActive, "closed")
            #expect(!accepted.take(queued), "finished: no task may serve it")
            try await queuedClient.closeFuture.get()
            #expect(served.channel.isActive, "the task's connection is left to the task")

            let lateClient = try await Self.connect(to: port)
            try await lateClient.closeFuture.get()
            #expect(await accepted.closeRest() == 0, "the late one was never held")
            #expect(servedClient.isActive)
            // The task's part: executeThenClose finishes what it served (an unfinished writer traps).
            try await served.executeThenClose { _, _ in }
            try await servedClient.closeFuture.get()
        }
    }
}
