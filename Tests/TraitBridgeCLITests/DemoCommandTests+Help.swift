import Foundation

/// The exact help texts the tests expect (what a user reads; change them on purpose).
extension DemoCommandTests {
    static let demoHelp = """
        OVERVIEW: Start a private broker, a simulated home and the bridge, link a
        partner cloud, and show status and changes.

        Everything runs on this machine: a private mosquitto on a free 127.0.0.1 port
        (or --broker), the devices of the scenario (zigbee2mqtt, Tasmota, Shelly, Home
        Assistant discovery, a Frigate camera), the bridge, and a partner cloud: a
        second bridge on its own private broker serving the --cloud scenario's devices
        over Google's Cloud-to-cloud API, which the bridge links to as Google would
        (SYNC, QUERY polling, EXECUTE). With the Matter Server installed
        (scripts/install-matter-server.sh) and root, a real Matter Server holds the
        --matter folder's node dumps and commissions a software Matter light, both
        inside a network namespace (scripts/sandbox.sh: their mDNS never reaches the
        machine's network). Above the devices it makes a zone, a group and two scenes,
        and the bridge runs the --automations folder's automations. It prints
        `traitbridge status` and that layout once the scenario's faults have happened,
        then streams changes like `traitbridge watch` until Ctrl-C (--once: exit after
        the status). Everything it started is stopped on the way out.

        Examples:
          traitbridge demo
          traitbridge demo --once
          traitbridge demo --scenario my-home.json --broker mqtt://127.0.0.1:1884

        USAGE: traitbridge demo [--scenario <scenario>] [--cloud <cloud>] [--matter <matter>] [--automations <automations>] [--broker <broker>] [--mappings <mappings>] [--once] [--log-level <log-level>]

        OPTIONS:
          --scenario <scenario>   The scenario file. (default: examples/demo-home.json)
          --cloud <cloud>         The partner cloud's scenario (served by a second
                                  bridge the demo links to); none: no cloud. (default:
                                  examples/demo-cloud-home.json)
          --matter <matter>       Matter node dumps for a real Matter Server to hold;
                                  none: no Matter devices. (default: examples/matter)
          --automations <automations>
                                  Automation definitions for the bridge (serve
                                  --automations); none: no automations. (default:
                                  examples/automations)
          --broker <broker>       Use this broker instead of starting a private
                                  mosquitto.
          --mappings <mappings>   A folder whose mappings add to or replace the
                                  embedded ones.
          --once                  Print the status table and exit instead of watching.
          --log-level <log-level> The bridge's log level on standard error. (default:
                                  error)
          --version               Show the version.
          -h, --help              Show help information.


        """

    static let statusHelp = """
        OVERVIEW: Show each device's state, connectivity, locality and last update, and
        whether the bridge is online.

        One line per device, by room, then name; STATE is what a person looks for
        first, in their words (on, 78 %; 22.2 °C; locked), as
        mappings/presentation/values.json's cards choose. Reads what the bridge has
        published (retained) on the broker; works from any machine that reaches it.
        Exit codes: 0 ok, 3 broker not reachable, 4 a named device not found.

        Examples:
          traitbridge status
          traitbridge status z2m-0x00158d0001000001 "Hall light"
          traitbridge status --broker mqtt://192.168.1.10 --json

        USAGE: traitbridge status [<devices> ...] [--home <home>] [--zone <zone>] [--broker <broker>] [--prefix <prefix>] [--timeout <timeout>] [--username <username>] [--password-file <password-file>] [--ca-file <ca-file>] [--cert-file <cert-file>] [--key-file <key-file>] [--json]

        ARGUMENTS:
          <devices>               Device ids or names (default: every device).

        OPTIONS:
          --home <home>           Only devices in this home (name or id).
          --zone <zone>           Only devices in a room of this zone.
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
          --json                  Print JSON: {"bridge": …, "devices": [{"id", "name",
                                  "room", "type", "connectivityState",
                                  "dataSourceLocality", "display", "lastUpdate" (ISO
                                  8601), "reason"}], "summary": {…}, and "links":
                                  {name: health} when the bridge has cloud links}.
          --version               Show the version.
          -h, --help              Show help information.


        """

    static let renameHelp = """
        OVERVIEW: Give a device the name people will use for it, kept across restarts.

        Some sources announce only an id (a Shelly is 'shellyplus1pm-4417939a5610'
        until you name it). The name is kept in the bridge's registry and wins over
        what the source says later; --reset gives back the source's name. Names are at
        most 64 characters, and no two devices share one (ignoring case and spaces).
        Exit codes: 0 renamed, 1 refused (the message says why), 3 broker or bridge not
        reachable, 4 device not found.

        Examples:
          traitbridge rename shellyplus1pm-4417939a5610 "Garage switch"
          traitbridge rename "Garage switch" --reset

        USAGE: traitbridge rename <device> [<name>] [--reset] [--json] [--broker <broker>] [--prefix <prefix>] [--timeout <timeout>] [--username <username>] [--password-file <password-file>] [--ca-file <ca-file>] [--cert-file <cert-file>] [--key-file <key-file>]

        ARGUMENTS:
          <device>                The device id or its current name.
          <name>                  The new name.

        OPTIONS:
          --reset                 Forget the name given here; the device takes its
                                  source's name again.
          --json                  Print the bridge's answer as JSON: {"status",
                                  "device", "name", "room"}.
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
