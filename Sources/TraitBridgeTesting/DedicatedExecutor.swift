import Dispatch
import Synchronization

/// A task executor on a serial dispatch queue of its own, outside Swift's cooperative pool. On two
/// cores that pool has two threads, and the synchronous tests (which wait for processes and brokers)
/// can hold both for minutes; an async test whose server must answer a peer with its own timeouts
/// (the CHIP SDK's controller gives up after 10 s) runs its tasks here instead:
/// `try await withTaskExecutorPreference(DedicatedExecutor(label: "…")) { … }`. Child tasks follow
/// the preference; unstructured `Task {}`s do not.
public final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    public init(label: String) { queue = DispatchQueue(label: label) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Why ``runOffThePool(_:within:_:)`` gave up.
public struct OffThePoolTimeout: Error, CustomStringConvertible {
    public let label: String
    public let timeout: Duration
    public var description: String { "\(label) did not finish within \(timeout) (its task was cancelled)" }
}

/// Runs `body` as a task that starts and stays on a ``DedicatedExecutor``, and waits for it here,
/// at most `timeout`: a synchronous test that needs async servers and clients gets them without a
/// thread of the cooperative pool (which the suite's other synchronous tests may all hold), and
/// cannot hang. On timeout the task is cancelled and ``OffThePoolTimeout`` thrown.
public func runOffThePool<Result: Sendable>(
    _ label: String, within timeout: Duration, _ body: @escaping @Sendable () async throws -> Result
) throws -> Result {
    let done = DispatchSemaphore(value: 0)
    let outcome = OffThePoolOutcome<Result>()
    let task = Task(executorPreference: DedicatedExecutor(label: label)) {
        do { outcome.set(.success(try await body())) } catch { outcome.set(.failure(error)) }
        done.signal()
    }
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    guard done.wait(timeout: .now() + seconds) == .success, let result = outcome.value else {
        task.cancel()
        throw OffThePoolTimeout(label: label, timeout: timeout)
    }
    return try result.get()
}

private final class OffThePoolOutcome<Value: Sendable>: Sendable {
    private let stored = Mutex<Swift.Result<Value, any Error>?>(nil)
    func set(_ result: Swift.Result<Value, any Error>) { stored.withLock { $0 = result } }
    var value: Swift.Result<Value, any Error>? { stored.withLock { $0 } }
}
