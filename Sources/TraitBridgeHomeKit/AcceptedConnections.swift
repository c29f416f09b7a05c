import NIOCore
import Synchronization

/// Every connection the HAP server accepted, held from the moment NIO wraps it until a task serves
/// it or the server has ended. NIO's accept stream drops the connections still queued in it when it
/// ends (the server closed at shutdown while a flood was being accepted), and a wrapped channel
/// whose writer is released unfinished traps the process (swift-nio#2637). Held here, each one is
/// either served (its `executeThenClose` finishes it) or finished and closed by `closeRest`; one
/// wrapped after `closeRest` is finished at once.
final class AcceptedConnections: Sendable {
    typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    private struct State {
        var waiting: [ObjectIdentifier: Connection] = [:]
        var isClosed = false
    }

    private let state = Mutex(State())

    /// Wraps `channel` (on its event loop, in the server's child initializer) and holds it.
    func accept(_ channel: any Channel) throws -> Connection {
        let connection = try Connection(wrappingChannelSynchronously: channel)
        let isClosed = state.withLock { state in
            if !state.isClosed { state.waiting[ObjectIdentifier(channel)] = connection }
            return state.isClosed
        }
        if isClosed { Self.finish(connection) }
        return connection
    }

    /// A task serves `connection` now: it is no longer held here. False when `closeRest` already
    /// finished it (the task must not serve it).
    func take(_ connection: Connection) -> Bool {
        state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(connection.channel)) != nil }
    }

    /// The server has ended: every connection no task took is finished and closed, and so is any
    /// wrapped from now on. Returns how many were still waiting.
    @discardableResult
    func closeRest() -> Int {
        let rest = state.withLock { state in
            state.isClosed = true
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for connection in rest { Self.finish(connection) }
        return rest.count
    }

    private static func finish(_ connection: Connection) {
        connection.outbound.finish()
        connection.channel.close(promise: nil)
    }
}
