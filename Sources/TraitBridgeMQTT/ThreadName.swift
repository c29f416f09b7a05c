#if canImport(Glibc)
    import Glibc
#endif

/// Names the calling thread as Linux shows it (`top -H`, `perf`, `/proc/<pid>/task`): Foundation's
/// `Thread.name` does not reach the kernel, and a name is 15 bytes at most.
public func nameThisThread(_ name: String) {
    #if os(Linux)
        let file = open("/proc/thread-self/comm", O_WRONLY)
        guard file >= 0 else { return }
        _ = name.withCString { write(file, $0, min(strlen($0), 15)) }
        close(file)
    #endif
}
