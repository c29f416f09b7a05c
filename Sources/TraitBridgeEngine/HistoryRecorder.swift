import Foundation
public import FoundationEssentials
public import Logging
import Synchronization
import TraitBridgeMQTT
public import TraitBridgeStore

#if canImport(Glibc)
    import Glibc
#endif

/// Takes the history's records off the message path and writes them on a thread of its own.
///
/// The engine hands records over inside its lock (``enqueue(_:)``: an append, never I/O, never a
/// wait); the thread writes them in batches (every 5 s, or at once when ``wakeAt`` are waiting),
/// answers `history` requests after writing what came before them (a change just made is in the
/// answer), and prunes by age and size. At most ``capacity`` records wait: beyond, they are dropped
/// and counted (the bridge's relaying never slows for its history).
public final class HistoryRecorder: Sendable {
    /// How long the history keeps a change, and how many bytes it may hold.
    public struct Bounds: Sendable, Hashable {
        public var maxAge: Duration
        public var maxBytes: Int64

        public init(maxAge: Duration = .seconds(10 * 86_400), maxBytes: Int64 = 256 << 20) {
            self.maxAge = maxAge
            self.maxBytes = maxBytes
        }
    }

    /// Running totals, for `bridge/health` and `/metrics`.
    public struct Totals: Sendable, Hashable {
        /// Changes written, dropped (too many waiting), and deleted by age or size.
        public var stored = 0
        public var dropped = 0
        public var pruned = 0
        /// Batches that could not be written (each logged).
        public var failedWrites = 0
        /// The bytes the history's pages hold, after the last batch.
        public var bytes: Int64 = 0
    }

    /// A read waiting for the writes before it: run on the recorder's thread, then answered.
    struct Query {
        var run: @Sendable (HistoryStore) -> Void
    }

    private struct Pending {
        var records: [HistoryRecord] = []
        var queries: [Query] = []
        var totals = Totals()
        var isRunning = true
    }

    /// At most this many changes wait to be written (131 072 unless a test says fewer).
    let capacity: Int
    static let wakeAt = 16_384
    /// A batch's cost is nearly fixed (each index page it touches is written once), so batches are
    /// written every 5 s (or at ``wakeAt`` waiting, or before a read): a `kill -9` loses at most that.
    static let writeEvery = 5.0
    private static let pruneEvery: Duration = .seconds(60)
    /// The series no change names any more are deleted once a day.
    private static let sweepEvery: Duration = .seconds(86_400)

    public let store: HistoryStore
    let bounds: Bounds
    private let logger: Logger
    private let pending = Mutex(Pending())
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    /// The clock pruning reads (a test moves it).
    private let now: @Sendable () -> Date

    public init(
        store: HistoryStore, bounds: Bounds = Bounds(), logger: Logger, capacity: Int = 131_072,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.capacity = max(1, capacity)
        self.bounds = bounds
        self.logger = logger
        self.now = now
        Thread { [self] in run() }.start()
    }

    /// Hands records over (inside the engine's lock): never blocks on the disk.
    public func enqueue(_ records: [HistoryRecord]) {
        guard !records.isEmpty else { return }
        let (signal, droppedNow, dropped) = pending.withLock { pending -> (Bool, Int, Int) in
            guard pending.isRunning else { return (false, 0, pending.totals.dropped) }
            let room = max(0, capacity - pending.records.count)
            let taken = min(room, records.count)
            if taken == records.count {
                pending.records += records
            } else {
                pending.records += records.prefix(taken)
            }
            let before = pending.totals.dropped
            pending.totals.dropped += records.count - taken
            let crossed = pending.records.count >= Self.wakeAt && pending.records.count - taken < Self.wakeAt
            return (crossed, pending.totals.dropped - before, pending.totals.dropped)
        }
        if signal { wake.signal() }
        // Said on the first drop and each time the total passes a power of two, not once per record.
        let before = dropped - droppedNow
        if droppedNow > 0, before == 0 || before.leadingZeroBitCount != dropped.leadingZeroBitCount {
            let message =
                "history: \(dropped) changes dropped, more than \(capacity) waited to be written; "
                + "the disk of \(store.path) is too slow or too full"
            logger.warning("\(message)")
        }
    }

    /// Asks for a device's history: answered on the recorder's thread after what was enqueued before.
    func query(_ filter: HistoryFilter, answer: @escaping @Sendable (Result<HistoryPage, StoreError>) -> Void) {
        read({ store throws(StoreError) in try store.page(filter) }, answer: answer)
    }

    /// Every device's (and each of `sets`') reachability over a time, answered on the recorder's thread.
    func availability(
        from: Date, to: Date, sets: [AvailabilitySet],
        answer: @escaping @Sendable (Result<AvailabilityReport, StoreError>) -> Void
    ) {
        read({ store throws(StoreError) in try store.availability(from: from, to: to, sets: sets) }, answer: answer)
    }

    private func read<Value: Sendable>(
        _ body: @escaping @Sendable (HistoryStore) throws(StoreError) -> Value,
        answer: @escaping @Sendable (Result<Value, StoreError>) -> Void
    ) {
        let query = Query { store in answer(Result { () throws(StoreError) in try body(store) }) }
        let accepted = pending.withLock { pending in
            guard pending.isRunning else { return false }
            pending.queries.append(query)
            return true
        }
        if accepted {
            wake.signal()
        } else {
            answer(.failure(.historyReadFailed(path: store.path, reason: "the bridge is stopping")))
        }
    }

    public var totals: Totals { pending.withLock { $0.totals } }

    /// Writes what waits, answers waiting queries and stops the thread (within two seconds).
    public func stop() {
        let wasRunning = pending.withLock { pending in
            defer { pending.isRunning = false }
            return pending.isRunning
        }
        guard wasRunning else { return }
        wake.signal()
        if done.wait(timeout: .now() + 2) == .timedOut {
            logger.warning("history: still writing after 2 s at stop; the last changes may be lost")
        }
    }

    // MARK: The thread

    private func run() {
        nameThisThread("tb-history")
        Self.yieldToEveryOtherThread()
        var lastPrune = ContinuousClock.now - Self.pruneEvery
        var lastSweep = ContinuousClock.now
        while true {
            _ = wake.wait(timeout: .now() + Self.writeEvery)
            let (records, queries, running) = pending.withLock { pending in
                defer {
                    pending.records = []
                    pending.queries = []
                }
                return (pending.records, pending.queries, pending.isRunning)
            }
            write(records)
            for query in queries { query.run(store) }
            if !running { break }
            if ContinuousClock.now - lastPrune >= Self.pruneEvery || !records.isEmpty {
                prune(byAge: ContinuousClock.now - lastPrune >= Self.pruneEvery)
                if ContinuousClock.now - lastPrune >= Self.pruneEvery { lastPrune = .now }
            }
            if ContinuousClock.now - lastSweep >= Self.sweepEvery {
                lastSweep = .now
                do { try store.removeEmptySeries() } catch { logger.error("history: \(error)") }
            }
        }
        done.signal()
    }

    /// Below every other thread: the history runs on what the relaying leaves. A batch is tens of
    /// milliseconds of a core; at `nice 10` it still held one message in a hundred at 5 000 msg/s on two
    /// cores. Linux's `SCHED_IDLE` (5 in `linux/sched.h`; Glibc's module does not name it) runs the
    /// thread only where no other wants the core; where refused, `nice 10`. Under CPU pressure the
    /// history falls behind into its queue (bounded, drops counted), the relaying does not.
    private static func yieldToEveryOtherThread() {
        #if os(Linux)
            var parameters = sched_param()
            let schedulingIdle: Int32 = 5
            if sched_setscheduler(0, schedulingIdle, &parameters) == 0 { return }
            // Linux takes a thread's id for its nice value.
            if let thread = threadID() { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, 10) }
        #endif
    }

    #if os(Linux)
        /// This thread's id (`/proc/thread-self` is `<pid>/task/<tid>`; Swift's Glibc has no `gettid`).
        private static func threadID() -> id_t? {
            var buffer = [CChar](repeating: 0, count: 64)
            let count = readlink("/proc/thread-self", &buffer, 63)
            guard count > 0 else { return nil }
            let text = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return text.split(separator: "/").last.flatMap { id_t($0) }
        }
    #endif

    private func write(_ records: [HistoryRecord]) {
        guard !records.isEmpty else { return }
        do {
            let stored = try store.write(records)
            pending.withLock { $0.totals.stored += stored }
        } catch {
            let failures = pending.withLock { pending in
                pending.totals.failedWrites += 1
                return pending.totals.failedWrites
            }
            if failures & (failures - 1) == 0 {
                logger.error("history: \(records.count) changes not written: \(error)")
            }
        }
    }

    /// By size after each batch (two pragmas); by age once a minute.
    private func prune(byAge: Bool) {
        do {
            let pruned = try store.prune(
                now: now(), maxAge: byAge ? bounds.maxAge : nil, maxBytes: bounds.maxBytes)
            let removed = pruned.byAge + pruned.bySize
            let bytes = (try? store.usedBytes()) ?? 0
            pending.withLock { pending in
                pending.totals.pruned += removed
                pending.totals.bytes = bytes
            }
        } catch {
            logger.error("history: \(error)")
        }
    }
}
