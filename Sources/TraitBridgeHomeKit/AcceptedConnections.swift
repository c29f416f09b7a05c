import NIOCore
import Synchronization

/// Every connection the HAP server accepted, held from the moment NIO wraps it until a task serves
/// it or the server has ended. NIO's accept stream drops the connections still queued in it when it
/// ends (the server closed at shutdown while a flood was being accepted), and a wrapped channel
/// whose writer is released unfinished traps the process (swift-nio#2637). Held here, each one is
/// either served (its `executeThenClose` finishes it) or finished and closed by `closeRest`; one
/// accepted after `closeRest` is closed unwrapped.
final class AcceptedConnections: Sendable {
    typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// A connection accepted after the server ended: closed here, never wrapped.
    struct ServerEnded: Error, CustomStringConvertible {
        var description: String { "HomeKit: a connection accepted after the server ended was closed" }
    }

    private struct State {
        var waiting: [ObjectIdentifier: Connection] = [:]
        var isClosed = false
    }

    private let state = Mutex(State())

    /// Wraps `channel` (on its event loop, in the server's child initializer) and holds it; once the
    /// server has ended, closes it and throws `ServerEnded` (NIO leaves a child whose initializer
    /// failed open: closing it is ours).
    func accept(_ channel: any Channel) throws -> Connection {
        try state.withLock { state in
            guard !state.isClosed else {
                channel.close(promise: nil)
                throw ServerEnded()
            }
            let connection = try Connection(wrappingChannelSynchronously: channel)
            state.waiting[ObjectIdentifier(channel)] = connection
            return connection
        }
    }

    /// A task serves `connection` now: it is no longer held here. False when `closeRest` already
    /// finished it (the task must not serve it).
    func take(_ connection: Connection) -> Bool {
        state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(connection.channel)) != nil }
    }

    /// The server has ended: every connection no task took is finished and closed (its scope opened
    /// and left at once), and any accepted from now on is refused. Returns how many were waiting.
    @discardableResult
    func closeRest() async -> Int {
        let rest = state.withLock { state in
            state.isClosed = true
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        await withDiscardingTaskGroup { group in
            for connection in rest {
                group.addTask {
                    do {
                        try await connection.executeThenClose { _, _ in }
                    } catch {
                        // An empty scope throws nothing, and NIO ignores the close's own errors.
                        assertionFailure("closing an unserved HAP connection threw \(error)")
                    }
                }
            }
        }
        return rest.count
    }
}
