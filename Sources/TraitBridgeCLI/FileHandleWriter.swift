#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes text straight to a file descriptor (stdout, stderr) without buffering surprises.
enum FileHandleWriter {
    static func write(_ string: String, to descriptor: Int32) {
        var string = string
        string.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
