internal import CMosquitto
import Foundation

/// One round of the network thread, written with libmosquitto's parts (`mosquitto_socket`,
/// `mosquitto_loop_read`, `mosquitto_loop_write`, `mosquitto_loop_misc`) instead of `mosquitto_loop`.
///
/// libmosquitto 2.0's `mosquitto_loop` reads one QoS 0 packet per call (its `max_packets` is
/// unused for reading) and then tries to write `max_packets` times, taking two locks each time
/// even with nothing queued: under load that was a `pselect` and up to 128 lock pairs per message.
/// A round here waits once, reads until the socket is empty (bounded), hands everything read on,
/// then writes what the handlers queued.
extension MQTTClient {
    /// Packets read in one round at most before they are handed on.
    static let readBudget = 512

    /// Waits up to `timeout` milliseconds for the broker's socket or a wake-up, then reads, hands on,
    /// writes and keeps the connection alive. Network thread only. Returns libmosquitto's result:
    /// anything but success means the connection is gone (its disconnect callback has run).
    func loopRound(timeout: Int32) -> Int32 {
        let socket = mosquitto_socket(handle)
        guard socket >= 0 else { return Int32(MOSQ_ERR_NO_CONN.rawValue) }
        let readable = Int16(truncatingIfNeeded: POLLIN)
        let wantsWrite = mosquitto_want_write(handle)
        var descriptors = [
            pollfd(fd: socket, events: readable | (wantsWrite ? Int16(truncatingIfNeeded: POLLOUT) : 0), revents: 0),
            pollfd(fd: wakeSignal.readEnd, events: readable, revents: 0),
        ]
        // A budget spent last round may have left bytes inside TLS that poll cannot see: do not wait then.
        let ready = poll(&descriptors, 2, readBudgetSpent ? 0 : timeout)
        guard ready >= 0 else {
            return errno == EINTR ? Int32(MOSQ_ERR_SUCCESS.rawValue) : Int32(MOSQ_ERR_ERRNO.rawValue)
        }
        if descriptors[1].revents != 0 { wakeSignal.drain() }
        let events = descriptors[0].revents
        let failed = Int16(truncatingIfNeeded: POLLHUP | POLLERR)
        var rc = Int32(MOSQ_ERR_SUCCESS.rawValue)
        if events & (readable | failed) != 0 || readBudgetSpent {
            readBudgetSpent = false
            rc = readAvailable()
        }
        mayWrite = true
        deliverReceived()
        mayWrite = false
        if rc == MOSQ_ERR_SUCCESS.rawValue && mosquitto_want_write(handle) {
            rc = mosquitto_loop_write(handle, 1)  // every queued packet, until the socket is full
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue {
            rc = mosquitto_loop_misc(handle)  // keep-alive: PINGREQ, and a broker that stopped answering
        }
        deliverReceived()  // a failed write or keep-alive has just reported the disconnection
        return rc
    }

    /// Writes what a new connection's handler queued (`online`, every retained topic it owns) before
    /// a retained 45 MB list is read and handled. Bounded in time; the loop writes whatever is left.
    func writeQueued(within limit: Duration) {
        let deadline = ContinuousClock.now + limit
        while mosquitto_want_write(handle), ContinuousClock.now < deadline {
            var socket = pollfd(fd: mosquitto_socket(handle), events: Int16(truncatingIfNeeded: POLLOUT), revents: 0)
            guard socket.fd >= 0, poll(&socket, 1, 10) >= 0 else { return }
            guard mosquitto_loop_write(handle, 1) == MOSQ_ERR_SUCCESS.rawValue else { return }
        }
    }

    func sleepInterruptibly(_ delay: Duration) {
        let deadline = ContinuousClock.now + delay
        while !isStopRequested && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Reads packets until the socket would block, the budget is spent, or a large payload came in
    /// (it is handed on before anything else is read: one 45 MB list at a time).
    private func readAvailable() -> Int32 {
        for _ in 0..<Self.readBudget {
            errno = 0
            let rc = mosquitto_loop_read(handle, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue { return rc }
            if errno == EAGAIN || errno == EWOULDBLOCK || receivedLargePayload { return rc }
        }
        readBudgetSpent = true
        return Int32(MOSQ_ERR_SUCCESS.rawValue)
    }
}

/// A pipe that another thread writes one byte to after it queued a packet, so the network thread's
/// `poll` returns and writes it now rather than at its next timeout.
final class WakeSignal: @unchecked Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(MQTTError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw .library(
                code: Int32(MOSQ_ERR_ERRNO.rawValue),
                message: "cannot make the network thread's wake-up pipe: \(String(cString: strerror(errno)))"
                    + " (raise the open-file limit, `ulimit -n`)")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// A full pipe already holds a wake-up: a failed write changes nothing.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe (64 KB at most: a full one), so the next `poll` waits again.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var reads = 0
        while reads < 32, read(readEnd, &bytes, bytes.count) == bytes.count { reads += 1 }
    }
}
