import NIOCore
import Synchronization

/// Ends a streaming client's connection once one message has waited longer than `limit` to be
/// taken (the client stopped reading and its socket is full): the write would otherwise wait for
/// ever, holding the connection, its task and its buffers. A client that reads, however slowly,
/// is never closed by it; one that falls behind the changes kept is told and dropped by the
/// stream itself.
final class StallWatch: Sendable {
    private let writingSince = Mutex<ContinuousClock.Instant?>(nil)
    private let channel: any Channel
    let limit: Duration

    init(channel: any Channel, limit: Duration) {
        self.channel = channel
        self.limit = limit
    }

    /// One write, timed while it waits.
    func write(_ write: () async throws -> Void) async throws {
        writingSince.withLock { $0 = .now }
        defer { writingSince.withLock { $0 = nil } }
        try await write()
    }

    /// Looks four times per limit until cancelled; closes the connection once a write has waited
    /// past the limit.
    func watch() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: limit / 4)
            let since = writingSince.withLock { $0 }
            if let since, ContinuousClock.now - since > limit {
                channel.close(promise: nil)
                return
            }
        }
    }

    /// Runs `body` (the stream's writes) with the watch beside it, and stops the watch after.
    func guarding(_ body: () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.watch() }
            defer { group.cancelAll() }
            try await body()
        }
    }
}
