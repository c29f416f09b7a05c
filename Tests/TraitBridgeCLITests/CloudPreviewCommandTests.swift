import Testing

/// `traitbridge cloud preview`: its help, exactly (its behaviour is tested with the export rules in
/// FulfillmentTests, against a running bridge).
@Suite("traitbridge cloud preview")
struct CloudPreviewCommandTests {
    @Test("help for cloud preview is exact")
    func help() throws {
        let help = try CommandRunner.run(["cloud", "preview", "--help"], environment: ["COLUMNS": "80"])
        #expect(help.standardOutput == Self.help)
    }

    @Test("without a running bridge it says which broker it could not reach and exits 3")
    func noBroker() throws {
        let result = try CommandRunner.run(["cloud", "preview", "--broker", "mqtt://127.0.0.1:1", "--timeout", "1"])
        #expect(result.exitCode == 3)
        #expect(result.standardError.contains("cannot reach the broker mqtt://127.0.0.1:1"), "\(result.standardError)")
    }

    static let help = """
        OVERVIEW: Print the SYNC response Google would receive, and which devices it
        would not get and why.

        The SYNC goes to standard output; the summary to standard error: devices left
        out by the export rules (the config's `export`), devices with no trait Google
        can express, and what reading the SYNC back found (the checks of `sync import
        --dry-run`). Exit 1 when reading it back rejects a device.

        Examples:
          traitbridge cloud preview > sync.json
          traitbridge cloud preview --agent-user-id alice

        USAGE: traitbridge cloud preview [--agent-user-id <agent-user-id>] [--mappings <mappings>] [--broker <broker>] [--prefix <prefix>] [--timeout <timeout>] [--username <username>] [--password-file <password-file>] [--ca-file <ca-file>] [--cert-file <cert-file>] [--key-file <key-file>]

        OPTIONS:
          --agent-user-id <agent-user-id>
                                  The agentUserId of the response. (default:
                                  traitbridge)
          --mappings <mappings>   A folder whose mappings add to or replace the
                                  embedded ones.
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
}
