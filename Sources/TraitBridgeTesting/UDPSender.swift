import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Sends datagrams to an IPv4 address and port from a socket of its own, nothing read back: for
/// tests that throw junk or floods at a UDP server (only loopback or a test sandbox's addresses).
public enum UDPSender {
    public struct SendError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Sends each datagram once, in order; a datagram the kernel refuses (a full buffer) is skipped.
    public static func send(_ datagrams: [[UInt8]], to host: String, port: UInt16) throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard socket >= 0 else { throw SendError(description: "socket: errno \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw SendError(description: "\(host) is no IPv4 address")
        }
        for datagram in datagrams {
            _ = datagram.withUnsafeBytes { bytes in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(socket, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
        }
    }
}
