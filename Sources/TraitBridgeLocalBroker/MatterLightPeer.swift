public import Foundation

/// A software Matter On/Off Light on loopback (`scripts/matter-light.py`, circuitmatter in the
/// Matter Server's venv), started and stopped by PID: a device that speaks Matter, for a real
/// Matter Server to commission, subscribe to and command. It makes the test PAA root the server
/// must trust (``paaDirectory``): start it before the ``MatterServerPeer``.
public final class MatterLightPeer: @unchecked Sendable {
    public let directory: URL
    public let passcode: Int
    private var process: ChildProcess?
    /// Held while the light runs: one light at a time on this machine (they share Matter's port).
    private var lock: MachineLock?
    /// Matter's UDP port: the controller reaches a device commissioned by IP there.
    public static let port = 5540

    public enum LightError: Error, CustomStringConvertible {
        case notInstalled
        case portTaken
        case didNotStart(String)

        public var description: String {
            switch self {
            case .notInstalled: "circuitmatter is not installed: run scripts/install-matter-server.sh"
            case .portTaken: "UDP port \(MatterLightPeer.port) on 127.0.0.1 is taken by another process"
            case .didNotStart(let log): "the Matter light did not start within 60 s; its log: \(log)"
            }
        }
    }

    /// `shouldStop`: asked while waiting for another light to finish (a demo's Ctrl-C).
    public init(repository: String, shouldStop: @escaping () -> Bool = { false }) throws {
        let python = repository + "/.build-matter/venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python),
            FileManager.default.fileExists(atPath: repository + "/.build-matter/venv/.traitbridge-light")
        else { throw LightError.notInstalled }
        lock = MachineLock("matter-light", waitUpTo: .seconds(120), shouldStop: shouldStop)
        guard Self.isPortFree() else {
            lock?.release()
            throw LightError.portTaken
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tb-light-\(UUID().uuidString)")
        let log = directory.appendingPathComponent("light.log").path
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            process = try ChildProcess(
                [
                    python, repository + "/scripts/matter-light.py", "--state",
                    directory.appendingPathComponent("state.json").path,
                    "--control", directory.appendingPathComponent("control").path, "--port", "\(Self.port)",
                    "--paa-dir", directory.appendingPathComponent("paa").path, "--seconds", "900",
                ], logFile: log)
        } catch {
            lock?.release()
            throw error
        }
        let deadline = ContinuousClock.now + .seconds(60)
        var found: Int?
        while found == nil {
            let text = LogFile.read(log)
            if text.contains("READY"),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PASSCODE ") })
            {
                found = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            }
            guard found == nil else { break }
            guard ContinuousClock.now < deadline, process?.isRunning == true else {
                process?.stop()
                lock?.release()
                throw LightError.didNotStart(String(text.suffix(2000)))
            }
            usleep(100_000)
        }
        passcode = found ?? 0
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    public var pid: pid_t? { process?.pid }

    /// The PAA roots the Matter Server must trust to commission this light.
    public var paaDirectory: String { directory.appendingPathComponent("paa").path }

    /// What the light printed (`LIGHT on` when a command switched it).
    public var log: String {
        LogFile.read(directory.appendingPathComponent("light.log").path)
    }

    /// Switches the light from the device side: `on`, `off` or `toggle`.
    public func press(_ command: String) throws {
        try Data(command.utf8).write(to: directory.appendingPathComponent("control"))
    }

    public func stop() {
        process?.stop()
        process = nil
        lock?.release()
    }

    static func isPortFree() -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }
}
