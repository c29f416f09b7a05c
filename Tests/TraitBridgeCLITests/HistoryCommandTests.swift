import Foundation
import Logging
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeStore

@testable import TraitBridgeCLI

/// `traitbridge history`: its help (exact, what a user reads), the times it reads, and its answer
/// in words (traits that moved together on one line, how long each part was unreachable).
@Suite("traitbridge history")
struct HistoryCommandTests {
    @Test("the help, exactly")
    func help() throws {
        let result = try CommandRunner.run(["history", "--help"], environment: ["COLUMNS": "80"])
        #expect(result.exitCode == 0)
        let expected = """
            OVERVIEW: Show a device's changes: when each part went offline and why, and its
            values.

            The bridge keeps every change of a trait's connectivity (with its reason) and
            of its values, 10 days and 256 MB by default (serve's "history" section). Times
            are local; --since and --until take a duration back from now (90s, 15m, 24h,
            7d, 2w, 1h30m) or a time (2026-11-30T08:00:00Z). At most --limit changes are
            shown, the newest; the last line says when older ones were left out. Exit
            codes: 0 shown, 1 refused (the message says why), 3 broker or bridge not
            reachable, 4 device not found.

            Examples:
              traitbridge history "Hall light"
              traitbridge history "Hall light" --since 7d --attribute connectivity
              traitbridge history radiator --trait matter.Thermostat --json

            USAGE: traitbridge history [<options>] <device>

            ARGUMENTS:
              <device>                The device id or name.

            OPTIONS:
              --trait <trait>         Only this trait (matter.OnOff, or light/matter.OnOff).
              --attribute <attribute> Only this attribute, or 'connectivity'.
              --since <since>         From this long ago, or this time. (default: 24h)
              --until <until>         Until this long ago, or this time (default: now).
              --limit <limit>         At most this many changes, the newest (1 to 10000).
                                      (default: 1000)
              --json                  Print the bridge's answer as JSON: {"status",
                                      "device", "records", …}.
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
        #expect(result.standardOutput == expected)
    }

    @Test("--since and --until: durations back from now, or a time; anything else says what it expects")
    func times() throws {
        #expect(HistoryTime.duration("90s") == 90)
        #expect(HistoryTime.duration("1h30m") == 5_400)
        #expect(HistoryTime.duration("2w") == 1_209_600)
        #expect(HistoryTime.duration("7d") == 604_800)
        for bad in ["", "h", "24", "1y", "-1h", "0s", "99999999999d", "1h 30m", "１h"] {
            #expect(HistoryTime.duration(bad) == nil, "\(bad)")
        }
        let now = Date(timeIntervalSince1970: 1_796_025_600)
        #expect(try HistoryTime.parse("24h", option: "--since", now: now) == now - 86_400)
        #expect(
            try HistoryTime.parse("2026-11-30T08:00:00Z", option: "--since", now: now)
                == Date(timeIntervalSince1970: 1_796_025_600))
        #expect(
            try HistoryTime.parse("2026-11-30T08:00:00.250Z", option: "--since", now: now)
                == Date(timeIntervalSince1970: 1_796_025_600.25))
        #expect(throws: (any Error).self) { try HistoryTime.parse("yesterday", option: "--since", now: now) }
    }

    @Test("in words: one line for traits that went offline together, values in people's units, time unreachable")
    func words() throws {
        let answer = #"""
            {"status":"ok","device":"z2m-hall","name":"Hall light","from":"2026-11-30T08:00:00.000Z",
             "to":"2026-11-30T09:00:00.000Z",
             "before":[{"at":"2026-11-29T20:00:00.000Z","trait":"light/matter.OnOff","connectivity":"online",
                        "locality":"localPeer","reasonCode":"messageReceived","reason":"message on zigbee2mqtt/Hall"}],
             "records":[
              {"at":"2026-11-30T08:10:00.000Z","trait":"light/matter.OnOff","attribute":"onOff","value":true},
              {"at":"2026-11-30T08:20:00.000Z","trait":"light/matter.LevelControl","attribute":"currentLevel",
               "value":254},
              {"at":"2026-11-30T08:30:00.000Z","trait":"light/matter.OnOff","connectivity":"offline",
               "locality":"localPeer","reasonCode":"availability","reason":"availability topic z/a said offline"},
              {"at":"2026-11-30T08:30:00.000Z","trait":"light/matter.LevelControl","connectivity":"offline",
               "locality":"localPeer","reasonCode":"availability","reason":"availability topic z/a said offline"},
              {"at":"2026-11-30T08:45:00.000Z","trait":"light/matter.OnOff","connectivity":"online",
               "locality":"localPeer","reasonCode":"availability","reason":"availability topic z/a said online"}],
             "truncated":true}
            """#
        let root = try JSONDocument.parse(Array(answer.utf8)).root
        let text = HistoryText.render(root, catalog: PeoplesWords.catalog(), timeZone: TimeZone(identifier: "UTC")!)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "Hall light (z2m-hall), 2026-11-30 08:00:00 to 2026-11-30 09:00:00", "\(text)")
        #expect(lines.contains { $0.hasPrefix("2026-11-30 08:10:00") && $0.hasSuffix("on (onOff = true)") }, "\(text)")
        #expect(lines.contains { $0.hasPrefix("2026-11-30 08:20:00") && $0.contains("100 %") }, "\(text)")
        #expect(
            lines.contains {
                $0.hasPrefix("2026-11-30 08:30:00") && $0.contains("light (On/off, Brightness)")
                    && $0.hasSuffix("offline: availability topic z/a said offline (localPeer)")
            }, "the two traits on one line: \(text)")
        #expect(lines.contains("unreachable 15 min 0 s in all, 1 drop: light/matter.OnOff"), "\(text)")
        #expect(lines.contains("unreachable 30 min 0 s in all, 1 drop: light/matter.LevelControl"), "\(text)")
        #expect(lines.last == "older changes left out; see them with --until 2026-11-30T08:10:00.000Z", "\(text)")
    }

    @Test("a damaged history.sqlite is moved aside and a new history begins; the registry is never touched")
    func damagedFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-hist-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x42, count: 16_384)
        try garbage.write(to: URL(fileURLWithPath: folder + "/history.sqlite"))
        let recorder = ServeCommand.openHistory(folder, HistorySettings(), logger: Logger(label: "test"))
        defer { recorder?.stop() }
        #expect(recorder != nil, "the bridge keeps a history again")
        #expect(FileManager.default.contents(atPath: folder + "/history.sqlite.broken") == garbage)
        #expect(try recorder?.store.count() == 0)
    }
}
