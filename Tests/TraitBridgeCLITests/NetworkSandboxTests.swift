import Foundation
import Testing
import TraitBridgeTesting

#if canImport(Glibc)
    import Glibc
#endif

/// `scripts/sandbox.sh` and ``NetworkSandbox``: a sandbox reaches nowhere but its pair, goes when
/// released, and does not outlive an owner killed without a chance to clean up (the guard, or the
/// next run's sweep).
@Suite(
    "Network sandbox",
    .enabled(
        if: NetworkSandbox.unavailableReason(repository: CommandRunner.repository) == nil,
        "\(NetworkSandbox.unavailableReason(repository: CommandRunner.repository) ?? "")"))
struct NetworkSandboxTests {
    static let script = CommandRunner.repository + "/scripts/sandbox.sh"

    static func namespaces() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []
    }

    /// Runs `arguments` (bounded: 30 s); its exit status and output.
    static func run(_ arguments: [String]) throws -> (status: Int32?, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tb-sbt-\(UUID().uuidString)").path
        defer { unlink(log) }
        let process = try ChildProcess(arguments, logFile: log)
        if !process.reap(within: .seconds(30)) { process.kill() }
        return (process.exitStatus, LogFile.read(log))
    }

    @Test("a sandbox has its loopback (multicast on) and its pair, no route beyond, and goes when removed")
    func shape() throws {
        let sandbox = try NetworkSandbox(repository: CommandRunner.repository)
        #expect(Self.namespaces().contains(sandbox.name))
        #expect(sandbox.peerAddress.hasPrefix("198.18.") && sandbox.hostAddress.hasPrefix("198.18."))
        let links = try Self.run(sandbox.command(["/usr/sbin/ip", "-o", "link"])).output
        #expect(links.contains("lo:") && links.contains("MULTICAST") && links.contains("veth0@"), "\(links)")
        #expect(links.split(separator: "\n").count == 2, "only lo and the pair: \(links)")
        let routes = try Self.run(sandbox.command(["/usr/sbin/ip", "route"])).output
        #expect(!routes.contains("default"), "no route beyond the pair: \(routes)")
        // Reachable from here over the pair: a listener inside answers on the sandbox's address.
        let listener = try ChildProcess(
            sandbox.command(["/usr/bin/python3", "-m", "http.server", "--bind", sandbox.peerAddress, "8099"]))
        #expect(eventually { MosquittoBroker.canConnect(host: sandbox.peerAddress, port: 8099) })
        sandbox.remove()
        #expect(listener.reap(within: .seconds(10)), "what ran inside is killed with the sandbox")
        #expect(!Self.namespaces().contains(sandbox.name))
        #expect(eventually { !FileManager.default.fileExists(atPath: "/sys/class/net/" + sandbox.hostInterface) })
    }

    @Test("an owner killed with SIGKILL: its guard removes the sandbox; one the guard missed goes at the next sweep")
    func killedOwner() throws {
        // The guard: an owner process, its sandbox, and a guard watching it, as NetworkSandbox makes.
        let owner = try ChildProcess(["/bin/sleep", "60"])
        let made = try Self.run([Self.script, "up", "\(owner.pid)"])
        let name = try #require(made.output.split(separator: " ").first.map(String.init), "\(made.output)")
        let orphanGuard = try OrphanGuard(
            owner: owner.pid, children: [], folders: [], afterwards: [[Self.script, "down", name]])
        #expect(Self.namespaces().contains(name))
        owner.kill()
        #expect(eventually(timeout: .seconds(15)) { !Self.namespaces().contains(name) }, "\(name) is removed")
        withExtendedLifetime(orphanGuard) {}

        // The sweep: a sandbox whose owner is gone, with no guard, goes when the next one is made.
        let gone = try ChildProcess(["/bin/true"])
        gone.reap(within: .seconds(5))
        let orphan = try Self.run([Self.script, "up", "\(gone.pid)"])
        let orphanName = try #require(orphan.output.split(separator: " ").first.map(String.init))
        #expect(Self.namespaces().contains(orphanName))
        let next = try NetworkSandbox(repository: CommandRunner.repository)
        #expect(!Self.namespaces().contains(orphanName), "swept when \(next.name) was made")
    }

    @Test("sandbox.sh refuses what it does not know, with its usage")
    func usage() throws {
        for arguments in [["up"], ["up", "x"], ["down", "eth0"], ["format"]] {
            let result = try Self.run([Self.script] + arguments)
            #expect(result.status == 64 && result.output.contains("usage:"), "\(arguments): \(result)")
        }
    }
}
