import Foundation
import Testing
import TraitBridgeTesting

/// `traitbridge cloud link list|test`: exact help, a test against a running partner (a `serve`
/// with its fulfillment endpoint), and against nothing.
extension FulfillmentTests {
    @Test("cloud link list and test: help, exactly")
    func linkHelp() throws {
        let test = try CommandRunner.run(["cloud", "link", "test", "--help"], environment: ["COLUMNS": "80"])
        #expect(test.standardOutput == Self.linkTestHelp)
        let list = try CommandRunner.run(["cloud", "link", "list", "--help"], environment: ["COLUMNS": "80"])
        #expect(list.standardOutput == Self.linkListHelp)
    }

    @Test("cloud link test: SYNC and QUERY of a live partner with counts; a partner that is not there → exit 1")
    func linkTest() async throws {
        try await withHome { partner in
            let config = partner.folder + "/links.json"
            try """
            {"cloudLinks": [
              {"name": "live", "url": "\(partner.base)/smarthome", "tokenFile": "\(partner.folder)/tokens-live"},
              {"name": "gone", "url": "http://127.0.0.1:9/smarthome", "tokenFile": "\(partner.folder)/tokens-live"}]}
            """.write(toFile: config, atomically: true, encoding: .utf8)
            try "\(Self.staticToken)\n".write(
                toFile: partner.folder + "/tokens-live", atomically: true, encoding: .utf8)
            let mappings = CommandRunner.repository + "/mappings"
            let list = try CommandRunner.run(["cloud", "link", "list", "--config", config])
            #expect(
                list.standardOutput.contains("live  \(partner.base)/smarthome  every 10 s, SYNC every 300 s, polled"))
            let live = try CommandRunner.run([
                "cloud", "link", "test", "live", "--config", config, "--mappings", mappings,
            ])
            #expect(live.exitCode == 0, "\(live.standardOutput)\(live.standardError)")
            #expect(live.standardOutput.contains("SYNC: 3 devices, 0 problems"), "\(live.standardOutput)")
            #expect(
                live.standardOutput.contains("QUERY: 3 of 3 devices answered, 1 online"),
                "the relay is offline, the climate unheard: \(live.standardOutput)")
            let gone = try CommandRunner.run([
                "cloud", "link", "test", "gone", "--config", config, "--mappings", mappings,
            ])
            #expect(gone.exitCode == 1)
            #expect(gone.standardError.contains("SYNC: SYNC failed: connection refused"), "\(gone.standardError)")
            let dryRun = try CommandRunner.run([
                "sync", "import", "--from-link", "live", "--config", config, "--dry-run", "--mappings", mappings,
            ])
            #expect(
                dryRun.exitCode == 0 && dryRun.standardOutput.contains("3 devices, 0 problems"),
                "\(dryRun.standardOutput)")
            let both = try CommandRunner.run(["sync", "import", "x.json", "--from-link", "live", "--config", config])
            #expect(both.exitCode == 64 || both.exitCode == 2, "a file or a link, not both")
            #expect(both.standardError.contains("give a SYNC file (or -), or --from-link NAME --config FILE"))
            let missing = try CommandRunner.run(["cloud", "link", "test", "nope", "--config", config])
            #expect(missing.exitCode == 2 && missing.standardError.contains("has no cloud link named 'nope'"))
        }
    }

    @Test("sync import: help, exactly (a file, or --from-link)")
    func syncImportHelp() throws {
        let help = try CommandRunner.run(["sync", "import", "--help"], environment: ["COLUMNS": "80"])
        #expect(help.standardOutput == Self.syncImportHelp)
    }

    static let syncImportHelp = """
        OVERVIEW: Import the devices of a SYNC response into the running bridge (or
        check them with --dry-run).

        Accepts a full SYNC response, its payload ({devices: [...]}), or the devices
        array; with --from-link, the SYNC a config's cloud link answers now (a one-shot
        import: the running link keeps its own). A device whose matterUniqueId or
        otherDeviceIds names a local device joins it: its traits are remote, the local
        ones keep their locality, the device is mixed. Every problem is printed with
        its JSON path; one bad device never stops the others. Exit codes: 0 all devices
        imported, 1 a device was rejected or the file is not a SYNC response, 3 the
        bridge is not reachable.

        Examples:
          traitbridge sync import home-sync.json
          traitbridge sync import --dry-run --json examples/demo-cloud-sync.json
          curl -s … | traitbridge sync import -
          traitbridge sync import --dry-run --from-link upstairs --config tb.json

        USAGE: traitbridge sync import [<options>] [<file>]

        ARGUMENTS:
          <file>                  The SYNC file, or - for standard input.

        OPTIONS:
          --from-link <from-link> Ask the cloud link of this name (in --config) for its
                                  SYNC instead of reading a file.
          --config <config>       The config file that defines --from-link's link.
          --dry-run               Do not talk to a bridge: translate the file and print
                                  the devices and problems.
          --json                  Print JSON instead of text.
          --mappings <mappings>   The mappings folder, for --dry-run. (default:
                                  mappings)
          --broker <broker>       Broker URL (default: $TRAITBRIDGE_BROKER, else
                                  mqtt://127.0.0.1:1883).
          --prefix <prefix>       Topic prefix of the bridge. (default: traitbridge)
          --timeout <timeout>     Seconds to wait for the broker and for answers.
                                  (default: 10)
          --username <username>   User name on the broker (overrides one in the URL).
          --password-file <password-file>
                                  File holding the broker password (default:
                                  $TRAITBRIDGE_PASSWORD).
          --ca-file <ca-file>     CA certificates (PEM) that sign an mqtts:// broker's
                                  certificate.
          --cert-file <cert-file> Client certificate (PEM) for an mqtts:// broker that
                                  asks for one.
          --key-file <key-file>   Key (PEM) of the client certificate.
          --version               Show the version.
          -h, --help              Show help information.


        """

    static let linkTestHelp = """
        OVERVIEW: Send a link's partner a SYNC and a QUERY as the bridge would, and say
        what came back.

        The SYNC is read as `sync import --dry-run` reads one (every problem with its
        JSON path). Exit 1 when the partner does not answer both, or its SYNC rejects a
        device.

        Examples:
          traitbridge cloud link test upstairs --config /etc/traitbridge.json

        USAGE: traitbridge cloud link test <name> --config <config> [--mappings <mappings>]

        ARGUMENTS:
          <name>                  The link's name in the config file.

        OPTIONS:
          --config <config>       The config file that defines the link.
          --mappings <mappings>   The mappings folder (to read the SYNC). (default:
                                  mappings)
          --version               Show the version.
          -h, --help              Show help information.


        """

    static let linkListHelp = """
        OVERVIEW: List the cloud links of a config file: name, URL, poll and sync
        intervals, pushes.

        Examples:
          traitbridge cloud link list --config /etc/traitbridge.json

        USAGE: traitbridge cloud link list --config <config>

        OPTIONS:
          --config <config>       The config file whose cloudLinks are listed.
          --version               Show the version.
          -h, --help              Show help information.


        """
}
