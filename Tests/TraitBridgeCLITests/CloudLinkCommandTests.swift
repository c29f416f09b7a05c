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
            let missing = try CommandRunner.run(["cloud", "link", "test", "nope", "--config", config])
            #expect(missing.exitCode == 2 && missing.standardError.contains("has no cloud link named 'nope'"))
        }
    }

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
