import Foundation

/// A lock on this machine (`flock` on a file in the temporary folder) for a peer only one may run
/// at a time — Matter Servers share `/data`, Matter lights share UDP 5540 — so tests in parallel
/// and a demo beside them take turns. Close-on-exec: a child started meanwhile (a broker) must not
/// inherit the lock and hold it after it is released.
public final class MachineLock: @unchecked Sendable {
    private var descriptor: Int32

    /// Waits up to `timeout` (or until `shouldStop`) for the lock named `name`; nil when not had.
    public init?(_ name: String, waitUpTo timeout: Duration, shouldStop: () -> Bool = { false }) {
        descriptor = open(
            FileManager.default.temporaryDirectory.appendingPathComponent("traitbridge-\(name).lock").path,
            O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        let deadline = ContinuousClock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard ContinuousClock.now < deadline, !shouldStop() else {
                close(descriptor)
                return nil
            }
            usleep(100_000)
        }
    }

    deinit { release() }

    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }
}
