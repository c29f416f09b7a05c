import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Lets one process at a time open and migrate a registry. `serve` creating a new registry while
/// another command (`traitbridge cloud link add`) opened it ran the same migrations twice, and the
/// second failed ("table device already exists"): each read which migrations were applied before
/// either had written; and a new file's switch to WAL takes a lock SQLite does not wait for
/// ("database is locked"). An advisory `flock` on `<registry>.lock` (an empty file left beside it),
/// waited for at most `timeout`, then released.
final class MigrationLock {
    private let descriptor: Int32

    init(path: String, timeout: Duration = .seconds(30)) throws(StoreError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        let deadline = ContinuousClock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR else {
                close(descriptor)
                throw .cannotOpen(path: path, reason: String(cString: strerror(failure)))
            }
            guard ContinuousClock.now < deadline else {
                close(descriptor)
                throw .cannotOpen(
                    path: path,
                    reason: "another TraitBridge process has held the registry's migration lock for \(timeout); "
                        + "wait for it to finish starting, or stop it")
            }
            usleep(10_000)
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
