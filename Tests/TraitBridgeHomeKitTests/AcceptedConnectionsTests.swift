import NIOCore
import NIOEmbedded
import Testing

@testable import TraitBridgeHomeKit

/// What the HAP server holds between accepting a connection and serving it: a connection no task
/// took is finished and closed when the server ends, so none is ever released unfinished (which
/// traps the process); one wrapped after the end is finished at once.
@Suite("Accepted HAP connections")
struct AcceptedConnectionsTests {
    static func connected() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 5540)).wait()
        return channel
    }

    @Test("the server's end closes what no task took; a taken one is the task's; a late one is closed at once")
    func closeRest() throws {
        let accepted = AcceptedConnections()
        let servedChannel = try Self.connected()
        let queuedChannel = try Self.connected()
        let lateChannel = try Self.connected()
        let served = try accepted.accept(servedChannel)
        let queued = try accepted.accept(queuedChannel)
        #expect(accepted.take(served), "handed to a task")
        #expect(!accepted.take(served), "taken once")
        #expect(accepted.closeRest() == 1, "the queued one was still held")
        queuedChannel.embeddedEventLoop.run()
        #expect(!queuedChannel.isActive, "closed")
        #expect(!accepted.take(queued), "finished: no task may serve it")
        #expect(servedChannel.isActive, "the task's connection is left to the task")

        let late = try accepted.accept(lateChannel)
        lateChannel.embeddedEventLoop.run()
        #expect(!lateChannel.isActive, "accepted after the end: closed at once")
        #expect(!accepted.take(late))
        #expect(accepted.closeRest() == 0)
        // The task's part: executeThenClose finishes what it served (an unfinished writer would trap here).
        served.outbound.finish()
        _ = try? servedChannel.finish()
    }
}
