import Foundation
import Testing
import TraitBridgeTesting

/// `traitbridge cloud link add|list|show|remove|test`: exact help, a test against a running partner (a `serve`
/// with its fulfillment endpoint), and against nothing.
extension FulfillmentTests {
    @Test("cloud link add, list, show, remove and test: help, exactly")
    func linkHelp() throws {
        for (command, help) in [
            ("test", Self.linkTestHelp), ("list", Self.linkListHelp), ("add", Self.linkAddHelp),
            ("show", Self.linkShowHelp), ("remove", Self.linkRemoveHelp),
        ] {
            let output = try CommandRunner.run(["cloud", "link", command, "--help"], environment: ["COLUMNS": "80"])
            #expect(output.standardOutput == help, "cloud link \(command) --help")
        }
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
            let data = ["--data-dir", partner.folder + "/cli-data"]
            let list = try CommandRunner.run(["cloud", "link", "list", "--config", config] + data)
            #expect(
                list.standardOutput.contains(
                    "live  \(partner.base)/smarthome  every 10 s, SYNC every 300 s, polled, token, \(config)"),
                "\(list.standardOutput)")
            let json = try CommandRunner.run(["cloud", "link", "list", "--json", "--config", config] + data)
            let parsed = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
            let links = (parsed?["links"] as? [[String: Any]]) ?? []
            #expect(links.map { $0["name"] as? String } == ["live", "gone"], "\(json.standardOutput)")
            #expect(links.first?["pollSeconds"] as? Int == 10 && links.first?["auth"] as? String == "token")
            let check = SchemaCheck()
            check.add("CloudLinkList", body: json.standardOutput, "cloud link list --json")
            try check.run(in: partner.folder)
            let live = try CommandRunner.run([
                "cloud", "link", "test", "live", "--config", config, "--mappings", mappings,
            ] + data)
            #expect(live.exitCode == 0, "\(live.standardOutput)\(live.standardError)")
            #expect(live.standardOutput.contains("SYNC: 3 devices, 0 problems"), "\(live.standardOutput)")
            #expect(
                live.standardOutput.contains("QUERY: 3 of 3 devices answered, 1 online, 0 problems"),
                "the relay is offline, the climate unheard: \(live.standardOutput)")
            let gone = try CommandRunner.run([
                "cloud", "link", "test", "gone", "--config", config, "--mappings", mappings,
            ] + data)
            #expect(gone.exitCode == 1)
            #expect(gone.standardError.contains("SYNC: SYNC failed: connection refused"), "\(gone.standardError)")
            let dryRun = try CommandRunner.run([
                "sync", "import", "--from-link", "live", "--config", config, "--dry-run", "--mappings", mappings,
            ] + data)
            #expect(
                dryRun.exitCode == 0 && dryRun.standardOutput.contains("3 devices, 0 problems"),
                "\(dryRun.standardOutput)")
            let both = try CommandRunner.run(["sync", "import", "x.json", "--from-link", "live", "--config", config])
            #expect(both.exitCode == 64 || both.exitCode == 2, "a file or a link, not both")
            #expect(both.standardError.contains("give a SYNC file (or -), or --from-link NAME"))
            let missing = try CommandRunner.run(["cloud", "link", "test", "nope", "--config", config] + data)
            #expect(missing.exitCode == 4 && missing.standardError.contains("has no cloud link named 'nope'"))
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
        array; with --from-link, the SYNC a cloud link (the registry's or a config's)
        answers now (a one-shot import: the running link keeps its own). A device whose
        matterUniqueId or otherDeviceIds names a local device joins it: its traits are
        remote, the local ones keep their locality, the device is mixed. Every problem
        is printed with its JSON path; one bad device never stops the others. Exit
        codes: 0 all devices imported, 1 a device was rejected or the file is not a
        SYNC response, 3 the bridge is not reachable.

        Examples:
          traitbridge sync import home-sync.json
          traitbridge sync import --dry-run --json examples/demo-cloud-sync.json
          curl -s … | traitbridge sync import -
          traitbridge sync import --dry-run --from-link upstairs --config tb.json

        USAGE: traitbridge sync import [<options>] [<file>]

        ARGUMENTS:
          <file>                  The SYNC file, or - for standard input.

        OPTIONS:
          --from-link <from-link> Ask the cloud link of this name (the registry's, or
                                  --config's) for its SYNC instead of a file.
          --config <config>       A config file that defines --from-link's link.
          --data-dir <data-dir>   Folder of the registry database, for --from-link
                                  (default: as serve's).
          --dry-run               Do not talk to a bridge: translate the file and print
                                  the devices and problems.
          --json                  Print JSON instead of text.
          --mappings <mappings>   For --dry-run: a folder whose mappings add to or
                                  replace the embedded ones.
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
          traitbridge cloud link test upstairs
          traitbridge cloud link test upstairs --config /etc/traitbridge.json

        USAGE: traitbridge cloud link test <name> [--config <config>] [--data-dir <data-dir>] [--mappings <mappings>]

        ARGUMENTS:
          <name>                  The link's name.

        OPTIONS:
          --config <config>       A config file that defines the link (else the
                                  registry's).
          --data-dir <data-dir>   Folder of the registry database (default: as serve's).
          --mappings <mappings>   A folder whose mappings add to or replace the
                                  embedded ones.
          --version               Show the version.
          -h, --help              Show help information.


        """

    static let linkListHelp = """
        OVERVIEW: List the cloud links: name, URL, poll and sync intervals, pushes, and
        where each is defined.

        Examples:
          traitbridge cloud link list
          traitbridge cloud link list --config /etc/traitbridge.json

        USAGE: traitbridge cloud link list [--config <config>] [--data-dir <data-dir>] [--json]

        OPTIONS:
          --config <config>       A config file whose cloudLinks are listed too.
          --data-dir <data-dir>   Folder of the registry database (default: as serve's).
          --json                  Print the links as JSON, in the shape of the HTTP
                                  API's GET /api/v1/cloud-links (its settings).
          --version               Show the version.
          -h, --help              Show help information.


        """

    static let linkAddHelp = """
        OVERVIEW: Link a partner cloud (its fulfillment URL and a token, or the OAuth
        flow); kept in the registry.

        With --token-file the token is read from the file. With the OAuth flow, give
        the partner's token URL, client id and secret file, and either --code (from the
        partner's login page) or --authorize-url: the URL to open is printed and the
        code (or the whole redirected URL) is read from standard input. The link's
        tokens are kept in the registry, readable by its owner only, and never printed.
        Adding a name again replaces the link. A running serve with this registry
        starts, changes or stops links within 2 s.

        Examples:
          traitbridge cloud link add upstairs --url https://up.example/smarthome \\
            --token-file up.token
          traitbridge cloud link add ha --url https://ha.example/api/google_assistant \\
            --oauth-token-url https://ha.example/auth/token --client-id tb \\
            --client-secret-file ha.secret --redirect-uri https://tb.example/cb \\
            --authorize-url https://ha.example/auth/authorize

        USAGE: traitbridge cloud link add [<options>] <name> --url <url>

        ARGUMENTS:
          <name>                  The link's name: up to 32 lowercase letters, digits
                                  and -.

        OPTIONS:
          --url <url>             The partner's fulfillment URL (https://host/path).
          --token-file <token-file>
                                  A file holding the partner's bearer token.
          --oauth-token-url <oauth-token-url>
                                  OAuth: the partner's token endpoint.
          --client-id <client-id> OAuth: the client id the partner gave this bridge.
          --client-secret-file <client-secret-file>
                                  OAuth: a file holding the client secret.
          --redirect-uri <redirect-uri>
                                  OAuth: the redirect URI registered with the partner.
          --code <code>           OAuth: the authorization code from the partner's
                                  login page.
          --authorize-url <authorize-url>
                                  OAuth: the partner's authorization page (the URL to
                                  open is printed; the code is read from stdin).
          --poll-seconds <poll-seconds>
                                  Seconds between QUERY polls (default: 10).
          --sync-seconds <sync-seconds>
                                  Seconds between SYNCs (default: 300).
          --timeout-seconds <timeout-seconds>
                                  Seconds a request may take (default: 10).
          --ca-file <ca-file>     CA certificates (PEM) for the partner's certificate.
          --push-public-key-file <push-public-key-file>
                                  The partner's service-account public key (PEM): it
                                  may push Report State to this bridge.
          --push-issuer <push-issuer>
                                  The issuer its push JWTs must carry.
          --data-dir <data-dir>   Folder of the registry database (default: as serve's).
          --version               Show the version.
          -h, --help              Show help information.


        """

    static let linkShowHelp = """
        OVERVIEW: Show a cloud link's settings (its tokens are never printed); its
        health is in traitbridge status.

        Examples:
          traitbridge cloud link show upstairs

        USAGE: traitbridge cloud link show <name> [--config <config>] [--data-dir <data-dir>]

        ARGUMENTS:
          <name>                  The link's name.

        OPTIONS:
          --config <config>       A config file that may define the link.
          --data-dir <data-dir>   Folder of the registry database (default: as serve's).
          --version               Show the version.
          -h, --help              Show help information.


        """

    static let linkRemoveHelp = """
        OVERVIEW: Remove a cloud link from the registry; a running serve drops it and
        its devices within 2 s.

        A link written in a config file is removed by editing the file.

        Examples:
          traitbridge cloud link remove upstairs

        USAGE: traitbridge cloud link remove <name> [--data-dir <data-dir>]

        ARGUMENTS:
          <name>                  The link's name.

        OPTIONS:
          --data-dir <data-dir>   Folder of the registry database (default: as serve's).
          --version               Show the version.
          -h, --help              Show help information.


        """
}
