import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

/// `traitbridge history DEVICE`: since when, how often it dropped, how its values moved.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show a device's changes: when each part went offline and why, and its values.",
        discussion: """
            The bridge keeps every change of a trait's connectivity (with its reason) and of its values, 10 days and \
            256 MB by default (serve's "history" section). Times are local; --since and --until take a duration back \
            from now (90s, 15m, 24h, 7d, 2w, 1h30m) or a time (2026-11-30T08:00:00Z). At most --limit changes are \
            shown, the newest; the last line says when older ones were left out. Exit codes: 0 shown, 1 refused (the \
            message says why), 3 broker or bridge not reachable, 4 device not found.

            Examples:
              traitbridge history "Hall light"
              traitbridge history "Hall light" --since 7d --attribute connectivity
              traitbridge history radiator --trait matter.Thermostat --json
            """
    )

    @Argument(help: "The device id or name.")
    var device: String
    @Option(help: "Only this trait (matter.OnOff, or light/matter.OnOff).")
    var trait: String?
    @Option(help: "Only this attribute, or 'connectivity'.")
    var attribute: String?
    @Option(help: "From this long ago, or this time.")
    var since = "24h"
    @Option(help: "Until this long ago, or this time (default: now).")
    var until: String?
    @Option(help: "At most this many changes, the newest (1 to 10000).")
    var limit = 1_000
    @Flag(help: "Print the bridge's answer as JSON: {\"status\", \"device\", \"records\", …}.")
    var json = false
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000") }
        _ = try HistoryTime.parse(since, option: "--since", now: Date())
        if let until { _ = try HistoryTime.parse(until, option: "--until", now: Date()) }
    }

    func run() throws {
        let now = Date()
        var request: JSONObject = [
            "device": .string(device),
            "from": .string(Timestamp.iso8601(try HistoryTime.parse(since, option: "--since", now: now))),
            "limit": .int(Int64(limit)),
        ]
        if let until {
            request["to"] = .string(Timestamp.iso8601(try HistoryTime.parse(until, option: "--until", now: now)))
        }
        request.setIfPresent("trait", trait.map { .string($0) })
        request.setIfPresent("attribute", attribute.map { .string($0) })
        let bytes = try BridgeRequest.send(
            "history", payload: JSONValue.object(request).serializedBytes(), connection: connection)
        let root: JSON
        do { root = try JSONDocument.parse(bytes, maxDepth: 128).root } catch {
            printError("error: the bridge answered with something that is not JSON: \(error)")
            throw ExitCode.failure
        }
        if root["status"]?.isString("error") == true {
            let code = root["code"]?.string ?? "error"
            printError("\(code): \(root["message"]?.string ?? "the bridge refused the request")")
            throw code == "deviceNotFound" ? ExitCode(4) : ExitCode.failure
        }
        if json {
            printJSON(bytes)
            return
        }
        print(HistoryText.render(root, catalog: PeoplesWords.catalog()), terminator: "")
    }
}

/// `--since` and `--until`: a duration back from now (`90s`, `15m`, `24h`, `7d`, `2w`, `1h30m`) or a time.
enum HistoryTime {
    static func parse(_ text: String, option: String, now: Date) throws(ValidationError) -> Date {
        if let seconds = duration(text) { return now - seconds }
        if let date = Timestamp.parse(text) { return date }
        throw ValidationError(
            "\(option) '\(text.prefix(40))': expected a duration back from now (90s, 15m, 24h, 7d, 2w, 1h30m) "
                + "or a time (2026-11-30T08:00:00Z)")
    }

    /// Seconds of `1h30m`-like text, at most ten years; nil when it is not one.
    static func duration(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
        var total = 0.0
        var digits = ""
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                guard digits.count <= 9 else { return nil }
            } else if let unit = units[character], let number = Double(digits) {
                total += number * unit
                digits = ""
            } else {
                return nil
            }
        }
        guard digits.isEmpty, total > 0, total <= 3_650 * 86_400 else { return nil }
        return total
    }
}
