#if canImport(Glibc)
    import Glibc
#endif

/// Reading a file another process is still writing (a `serve.log`, a receiver's event log).
/// Plain POSIX reads: `String(contentsOfFile:)` of a file that grows while it is read leaks its
/// 4 KiB buffer in FoundationEssentials (seen by LeakSanitizer), which would hide real leaks.
public enum TestFiles {
    /// The file's text as far as it is written now; "" when it cannot be opened.
    public static func text(atPath path: String, limit: Int = 64 << 20) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
