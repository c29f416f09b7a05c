import Foundation
import Testing

/// The README's five-minute tour, run against a running demo so that the two cannot drift apart:
/// each `traitbridge` line of the tour's block runs with the broker the demo printed, exits 0, and
/// prints what its comment quotes after `→`; the table the README shows has the demo's rows (name,
/// room, type, connectivity, locality, reason) and, with the Matter part, its summary line.
enum ReadmeTour {
    /// One command of the tour: its README line, its words, what it must print.
    struct Step {
        var line: Int
        var words: [String]
        var expected: String?
    }

    /// The tour's block: the `sh` block that exports the API's address.
    static func steps(readme: String) -> [Step] {
        guard
            let block = MarkdownBlocks.fenced(in: readme).first(where: {
                $0.language == "sh" && $0.text.contains("TRAITBRIDGE_API=")
            })
        else { return [] }
        let lines = block.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return ShellWords.commands(in: block).filter { $0.words.first == "traitbridge" }.map { line, words in
            let text = lines.indices.contains(line - block.line) ? lines[line - block.line] : ""
            let comment = text.range(of: " # ").map { String(text[$0.upperBound...]) } ?? ""
            let expected = comment.range(of: "→ ").map {
                String(comment[$0.upperBound...]).trimmingCharacters(in: .whitespaces)
            }
            return Step(line: line, words: Array(words.dropFirst()), expected: expected)
        }
    }

    /// Runs the tour on the demo whose output so far is `demoOutput` (its watch stage reached).
    static func check(demoOutput: String, withMatter: Bool) throws {
        let readme = WatchCommandTests.read(CommandRunner.repository + "/README.md")
        let broker = try #require(
            demoOutput.firstMatch(of: /TRAITBRIDGE_BROKER=(mqtt:\/\/127\.0\.0\.1:\d+)/).map { String($0.1) },
            "the demo prints the broker to export")
        #expect(demoOutput.contains("export TRAITBRIDGE_API=http://127.0.0.1:"), "and the API to export")
        #expect(demoOutput.firstMatch(of: /TRAITBRIDGE_TOKEN=tb-demo-[0-9a-f-]+/) != nil, "and its token")
        try checkForms(broker: broker)
        let steps = steps(readme: readme)
        #expect(steps.count >= 12, "the README's tour: \(steps.map(\.words))")
        for step in steps {
            let result = try CommandRunner.run(step.words, environment: ["TRAITBRIDGE_BROKER": broker])
            let place = "README.md:\(step.line): traitbridge \(step.words.joined(separator: " "))"
            #expect(result.exitCode == 0, "\(place): exit \(result.exitCode): \(result.standardError)")
            guard let expected = step.expected else { continue }
            if expected.contains(" devices: "), !withMatter {
                print("\(place): the summary is not compared: the demo ran without its Matter part")
                continue
            }
            #expect(result.standardOutput.contains(expected), "\(place) prints '\(expected)': \(result.standardOutput)")
            if step.words.first == "status" { checkTable(readme: readme, status: result.standardOutput, withMatter) }
        }
    }

    /// What `status` says of each kind of device in the demo, in people's words (each device's type
    /// must be here, so a new kind cannot go unchecked).
    static let forms: [String: String] = [
        "Thermostat": #"\d+(\.\d)? °C, heating to \d+(\.\d)? °C, (heat|cool|off|auto)(, battery \d+ %)?"#,
        "TemperatureSensor": #"-?\d+(\.\d)? °C, humidity \d+ %(, battery \d+ %)?"#,
        "OnOffPlugInUnit": #"(on|off)(, \d+(\.\d)? W)?"#,
        "DoorLock": #"(locked|unlocked|not fully locked)(, battery \d+ %)?"#,
        "ColorTemperatureLight": #"(\d+ lx, )?(on|off), brightness \d+ %, \d+ K(, (occupied|clear))?"#,
        "DimmableLight": #"(on|off), brightness \d+ %"#,
        "OnOffLight": #"on|off"#,
        "WindowCovering": #"\d+ % open(, \d+(\.\d)? W)?"#,
        "ContactSensor": #"(open|closed)(, battery \d+ %)?"#,
        "Camera": #"(occupied|clear)?"#,
    ]

    /// Every device's `status --json` display against its type's form.
    static func checkForms(broker: String) throws {
        let result = try CommandRunner.run(["status", "--json"], environment: ["TRAITBRIDGE_BROKER": broker])
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let devices = root["devices"] as? [[String: Any]] ?? []
        #expect(devices.count >= 14)
        for device in devices {
            let name = device["name"] as? String ?? "?"
            let type = device["type"] as? String ?? "?"
            let display = device["display"] as? String ?? ""
            guard let pattern = forms[type], let form = try? Regex(pattern) else {
                Issue.record("\(name): a \(type) has no expected form in ReadmeTour.forms: '\(display)'")
                continue
            }
            #expect(display.wholeMatch(of: form) != nil, "\(name) (\(type)): '\(display)'")
            #expect((device["lastUpdate"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
        }
    }

    /// The README's table rows against `status`: every cell but the values and the time.
    static func checkTable(readme: String, status: String, _ withMatter: Bool) {
        guard let table = MarkdownBlocks.fenced(in: readme).first(where: { $0.text.hasPrefix("bridge: online") })
        else {
            Issue.record("README.md has no status table")
            return
        }
        let rows = status.split(separator: "\n").map(String.init)
        for line in table.text.split(separator: "\n").map(String.init).dropFirst(2) where line != "…" {
            if line.contains(" devices: ") {
                if withMatter { #expect(rows.contains(line), "README's summary '\(line)' is the demo's") }
                continue
            }
            let shown = cells(line)
            guard let row = rows.first(where: { $0.hasPrefix(shown[0] + "  ") }).map(cells) else {
                Issue.record("README's row '\(shown[0])' is not in the demo's status: \(status)")
                continue
            }
            // NAME, ROOM, TYPE, then (after STATE) CONNECTIVITY, LOCALITY; the REASON when there is one.
            #expect(Array(shown.prefix(3)) == Array(row.prefix(3)), "\(shown) vs \(row)")
            #expect(shown.dropFirst(4).prefix(2) == row.dropFirst(4).prefix(2), "\(shown) vs \(row)")
            // With a reason, eight cells (the time is one: a single space inside); without, seven.
            #expect(shown.count == row.count, "\(shown) vs \(row)")
            if shown.count == 8, row.count == 8 { #expect(shown[7] == row[7], "\(shown) vs \(row)") }
        }
    }

    /// A table line's cells (columns are two spaces or more apart).
    static func cells(_ line: String) -> [String] {
        line.split(separator: #/ {2,}/#).map { String($0).trimmingCharacters(in: .whitespaces) }
    }
}
