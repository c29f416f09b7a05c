public import Foundation

/// A software Matter On/Off Light (`scripts/matter-light.py`, circuitmatter in the Matter Server's
/// venv) inside a ``NetworkSandbox`` (it speaks mDNS), started and stopped by PID: a device that
/// speaks Matter, for a real Matter Server in the same sandbox to commission over the sandbox's
/// loopback, subscribe to and command. It makes the test PAA root the server must trust
/// (``paaDirectory``): start it before the ``MatterServerPeer``.
public final class MatterLightPeer: @unchecked Sendable {
    public let directory: URL
    public let passcode: Int
    /// The namespace it runs in: the Matter Server that commissions it must run there too.
    public let sandbox: NetworkSandbox
    private var process: ChildProcess?
    /// Matter's UDP port: the controller reaches a device commissioned by IP there. Each sandbox
    /// has its own ports, so lights in different sandboxes do not meet.
    public static let port = 5540

    public enum LightError: Error, CustomStringConvertible {
        case notInstalled
        case didNotStart(String)

        public var description: String {
            switch self {
            case .notInstalled: "circuitmatter is not installed: run scripts/install-matter-server.sh"
            case .didNotStart(let log): "the Matter light did not start within 60 s; its log: \(log)"
            }
        }
    }

    /// `shouldStop`: asked while waiting for the light to come up (a demo's Ctrl-C).
    public init(repository: String, sandbox: NetworkSandbox, shouldStop: @escaping () -> Bool = { false }) throws {
        let python = repository + "/.build-matter/venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python),
            FileManager.default.fileExists(atPath: repository + "/.build-matter/venv/.traitbridge-light")
        else { throw LightError.notInstalled }
        self.sandbox = sandbox
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tb-light-\(UUID().uuidString)")
        let log = directory.appendingPathComponent("light.log").path
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        process = try ChildProcess(
            sandbox.command([
                python, repository + "/scripts/matter-light.py", "--state",
                directory.appendingPathComponent("state.json").path,
                "--control", directory.appendingPathComponent("control").path, "--port", "\(Self.port)",
                "--paa-dir", directory.appendingPathComponent("paa").path, "--seconds", "900",
            ]), logFile: log)
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
            guard ContinuousClock.now < deadline, process?.isRunning == true, !shouldStop() else {
                process?.stop()
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
    }
}
