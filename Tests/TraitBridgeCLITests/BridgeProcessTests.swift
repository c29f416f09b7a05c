import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The check every test's `traitbridge` child gets when it ends (`BridgeProcess`): a crash, a
/// status other than 0 after SIGTERM, or a child that does not end fails the test; nothing the
/// child started is left running; and no test starts `traitbridge` any other way.
@Suite("How a test's traitbridge child ended")
struct BridgeProcessTests {
    /// A shell standing in for a daemon: `onTerm` runs when SIGTERM arrives, after it printed "up".
    static func daemon(onTerm: String) throws -> BridgeProcess {
        let child = try BridgeProcess(
            launching: ["/bin/sh", "-c", "trap '\(onTerm)' TERM; echo up; while :; do sleep 0.05; done"],
            command: "serve")
        #expect(eventually { LogFile.read(child.log).contains("up") })
        return child
    }

    @Test("a child that traps on SIGTERM fails the test, showing the crash's first lines")
    func crashOnStop() throws {
        let child = try Self.daemon(onTerm: #"echo "Fatal error: Deinited NIOAsyncWriter"; kill -ILL $$"#)
        withKnownIssue("the crash is recorded") {
            child.stop(within: .seconds(10))
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("crashed after SIGTERM") && text.contains("Fatal error: Deinited NIOAsyncWriter")
                && text.contains("ended by SIGILL")
        }
        #expect(child.exitStatus == -SIGILL)
    }

    @Test("a child that exits with a status other than 0 on SIGTERM fails the test")
    func statusOnStop() throws {
        let child = try Self.daemon(onTerm: "echo stopping badly; exit 3")
        withKnownIssue("the status is recorded") {
            child.stop(within: .seconds(10))
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("exited with status 3 after SIGTERM, not status 0")
        }
    }

    @Test("a child that ignores SIGTERM is killed with what it started, and that fails the test")
    func hungOnStop() throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("tb-hung-\(UUID().uuidString)")
            .path
        defer { unlink(pidFile) }
        // The grandchild stands in for the runtime's crash reporter: in the child's process group.
        let child = try BridgeProcess(
            launching: ["/bin/sh", "-c", "trap '' TERM; sleep 60 & echo $! > \(pidFile); echo up; wait"],
            command: "serve")
        #expect(eventually { LogFile.read(child.log).contains("up") && !TestFiles.text(atPath: pidFile).isEmpty })
        let grandchild = try #require(pid_t(TestFiles.text(atPath: pidFile).trimmingCharacters(in: .whitespaces
            .union(.newlines))))
        withKnownIssue("the hang is recorded") {
            child.stop(within: .seconds(1))
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("did not end after SIGTERM: killed")
        }
        #expect(eventually(timeout: .seconds(5)) { kill(grandchild, 0) != 0 }, "the grandchild \(grandchild) is gone")
    }

    @Test("a child that ends cleanly on SIGTERM passes")
    func cleanStop() throws {
        let child = try Self.daemon(onTerm: "echo stopped; exit 0")
        #expect(child.stop(within: .seconds(10)))
        #expect(child.exitStatus == 0)
    }

    @Test("no test starts traitbridge except through BridgeProcess (whose end is checked)")
    func everyChildIsChecked() throws {
        let folder = CommandRunner.repository + "/Tests"
        let files = FileManager.default.enumerator(atPath: folder)?.allObjects.compactMap { $0 as? String } ?? []
        var unchecked: [String] = []
        for file in files where file.hasSuffix(".swift") && !file.contains("BridgeProcess") {
            let lines = TestFiles.text(atPath: folder + "/" + file)
                .split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where line.contains("ChildProcess(") {
                // The call and the first lines of its arguments.
                let call = lines[index..<min(lines.count, index + 4)].joined(separator: "\n")
                if call.contains("executable.path") || call.contains("bin/traitbridge") {
                    unchecked.append("Tests/\(file):\(index + 1)")
                }
            }
        }
        #expect(files.contains { $0.hasSuffix("ServeCommandTests.swift") }, "the scan reads the tests")
        #expect(unchecked.isEmpty, "start these through BridgeProcess: \(unchecked)")
    }
}
