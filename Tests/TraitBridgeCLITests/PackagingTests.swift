import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// `make install` and `make deb` as a user runs them (`scripts/package.sh`, with the binary the
/// tests built): every file where it belongs, the installed command working from `/` with no
/// flags, `uninstall` leaving nothing behind, and the Debian package installed by dpkg into a
/// throw-away root (its user, its conffile, its unit). dpkg needs root: without it those cases
/// are skipped, saying so.
@Suite("install and the Debian package", .serialized)
struct PackagingTests {
    static let isRoot = getuid() == 0

    func temporaryFolder(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tb-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs a program (standard output and error together) from `directory`, with a 300 s limit.
    @discardableResult
    func run(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], in directory: String = "/"
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let deadline = Date().addingTimeInterval(300)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func package(_ mode: String, _ environment: [String: String]) throws -> (status: Int32, output: String) {
        try run(
            "/bin/bash", [CommandRunner.repository + "/scripts/package.sh", mode],
            environment: environment.merging(["BINARY": CommandRunner.executable.path]) { $1 },
            in: CommandRunner.repository)
    }

    @Test(
        "make install into a DESTDIR: binary, completions, manual, examples, unit; it runs from /; uninstall removes it"
    )
    func installAndUninstall() throws {
        let destination = try temporaryFolder("destdir")
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let environment = ["PREFIX": "/usr/local", "DESTDIR": destination]
        let installed = try package("install", environment)
        #expect(installed.status == 0, "\(installed.output)")
        let root = destination + "/usr/local"
        for file in [
            "bin/traitbridge", "share/man/man1/traitbridge.1", "share/bash-completion/completions/traitbridge",
            "share/zsh/site-functions/_traitbridge", "share/fish/vendor_completions.d/traitbridge.fish",
            "share/traitbridge/examples/demo-home.json", "share/traitbridge/examples/generic-devices.json",
            "lib/systemd/system/traitbridge.service", "lib/sysusers.d/traitbridge.conf",
        ] {
            #expect(FileManager.default.fileExists(atPath: root + "/" + file), "\(file) is installed")
        }
        let manual = WatchCommandTests.read(root + "/share/man/man1/traitbridge.1")
        #expect(manual.contains(".Sh NAME") && manual.contains("serve"), "the manual covers the commands")
        let unit =
            WatchCommandTests.read(root + "/lib/systemd/system/traitbridge.service")
        #expect(unit.contains("ExecStart=/usr/local/bin/traitbridge serve --config /etc/traitbridge/config.json"))
        let bash =
            WatchCommandTests.read(root + "/share/bash-completion/completions/traitbridge")
        #expect(bash.contains("serve"))

        // From `/`, with no flags: the embedded catalog.
        let version = try run(root + "/bin/traitbridge", ["--version"])
        #expect(version.status == 0 && version.output.contains("("), "\(version.output)")
        let validate = try run(root + "/bin/traitbridge", ["mappings", "validate"])
        #expect(validate.status == 0 && validate.output.hasPrefix("the embedded catalog"), "\(validate.output)")
        let broker = try MosquittoBroker()
        let watcher = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/state"])
        let serve = try BridgeProcess(
            launching: [
                "/bin/sh", "-c",
                "cd / && exec '\(root)/bin/traitbridge' serve --broker \(broker.url) --data-dir '\(destination)/data'",
            ], command: "serve", log: destination + "/serve.log")
        #expect(watcher.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil)
        serve.stop()

        let removed = try package("uninstall", environment)
        #expect(removed.status == 0, "\(removed.output)")
        let left = FileManager.default.enumerator(atPath: root)?.allObjects.compactMap { $0 as? String } ?? []
        let files = left.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
        #expect(files.isEmpty, "uninstall leaves no file: \(files)")
    }

    @Test(
        "the Debian package: control fields; dpkg into a throw-away root makes the user, the conffile, a valid unit",
        .enabled(if: isRoot, "dpkg --root needs root: skipped"))
    func debianPackage() throws {
        let out = try temporaryFolder("deb")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let built = try package("deb", ["OUT": out, "DEB_COMPRESSION": "none"])  // the test binary is large
        #expect(built.status == 0, "\(built.output)")
        let deb = built.output.split(separator: "\n").last.map(String.init) ?? ""
        #expect(deb.hasSuffix(".deb") && deb.contains("traitbridge_"), "\(built.output)")
        let info = try run("/usr/bin/dpkg-deb", ["-I", deb])
        for field in [
            "Package: traitbridge", "Depends: libmosquitto1, libjson-c5, libsqlite3-0", "Recommends: mosquitto",
            "conffiles",
        ] {
            #expect(info.output.contains(field), "\(field)")
        }
        let contents = try run("/usr/bin/dpkg-deb", ["-c", deb]).output
        for path in [
            "./usr/bin/traitbridge", "./usr/share/man/man1/traitbridge.1.gz", "./etc/traitbridge/config.json",
            "./usr/lib/systemd/system/traitbridge.service", "./usr/share/traitbridge/examples/demo-home.json",
        ] {
            #expect(contents.contains(path), "\(path) is in the package")
        }

        // A throw-away root with an empty dpkg database and the accounts files useradd needs.
        let root = out + "/root-fs"
        for folder in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "etc"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        for (file, text) in [
            ("var/lib/dpkg/status", ""), ("etc/passwd", "root:x:0:0:root:/root:/bin/sh\n"),
            ("etc/group", "root:x:0:\n"), ("etc/shadow", "root:*:19000:0:99999:7:::\n"), ("etc/gshadow", "root:*::\n"),
        ] {
            try text.write(toFile: root + "/" + file, atomically: true, encoding: .utf8)
        }
        let dpkg = ["--root=\(root)", "--force-script-chrootless", "--force-depends", "--log=/dev/null"]
        let installed = try run("/usr/bin/dpkg", dpkg + ["-i", deb])
        #expect(installed.status == 0, "\(installed.output)")
        let passwd = WatchCommandTests.read(root + "/etc/passwd")
        let user = passwd.split(separator: "\n").first { $0.hasPrefix("traitbridge:") }
        #expect(user?.contains(":/var/lib/traitbridge:") == true, "the service's user: \(passwd)")
        let group = WatchCommandTests.read(root + "/etc/group")
            .split(separator: "\n").first { $0.hasPrefix("traitbridge:") }?.split(separator: ":")[2]
        let attributes = try FileManager.default.attributesOfItem(atPath: root + "/etc/traitbridge/config.json")
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
        #expect((attributes[.groupOwnerAccountID] as? Int).map(String.init) == group.map(String.init))
        let status = try run("/usr/bin/dpkg", ["--root=\(root)", "-s", "traitbridge"]).output
        #expect(status.contains("Status: install ok installed") && status.contains("/etc/traitbridge/config.json"))
        // The installed command runs from `/` with no flags.
        let validate = try run(root + "/usr/bin/traitbridge", ["mappings", "validate"])
        #expect(validate.status == 0 && validate.output.hasPrefix("the embedded catalog"), "\(validate.output)")

        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            // The unit as installed, its ExecStart pointed at the binary inside the root.
            let unit = WatchCommandTests.read(root + "/usr/lib/systemd/system/traitbridge.service")
            let copy = out + "/traitbridge.service"
            try unit.replacingOccurrences(of: "ExecStart=/usr/bin/", with: "ExecStart=\(root)/usr/bin/")
                .write(toFile: copy, atomically: true, encoding: .utf8)
            let verified = try run("/usr/bin/systemd-analyze", ["verify", "--man=no", copy])
            #expect(verified.status == 0 && verified.output.isEmpty, "systemd-analyze: \(verified.output)")
        }
        let purged = try run("/usr/bin/dpkg", dpkg + ["--purge", "traitbridge"])
        #expect(purged.status == 0, "\(purged.output)")
        #expect(!FileManager.default.fileExists(atPath: root + "/usr/bin/traitbridge"))
        #expect(
            !FileManager.default.fileExists(atPath: root + "/etc/traitbridge/config.json"), "purge takes the conffile")
    }
}
