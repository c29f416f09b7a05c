import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMQTT

/// `traitbridge set DEVICE TRAIT.ATTRIBUTE=VALUE`.
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Write one attribute of a device and print the outcome.",
        discussion: """
            The value is read as JSON when it parses (200, true, "x"), else as text, and checked against the attribute's metadata (the error gives the allowed range). Exit codes: 0 confirmed or assumed, 1 refused, 3 broker or bridge not reachable, 4 device not found.

            Examples:
              traitbridge set "Hall light" matter.LevelControl.currentLevel=200
              traitbridge set Relay matter.OnOff.onOff=false --device-type switch_l1
            """
    )

    @Argument(help: "The device id or name.")
    var device: String
    @Argument(help: "TRAIT.ATTRIBUTE=VALUE, e.g. matter.LevelControl.currentLevel=200.")
    var assignment: String
    @Option(help: "The device type key, when several device types hold the trait.")
    var deviceType: String?
    @OptionGroup var challenge: ChallengeOptions
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        guard let equals = assignment.firstIndex(of: "="), let dot = assignment[..<equals].lastIndex(of: "."),
            assignment[..<dot].contains(".")
        else {
            throw ValidationError("'\(assignment)' is not TRAIT.ATTRIBUTE=VALUE; write e.g. matter.OnOff.onOff=true")
        }
        var object = JSONObject()
        if let deviceType { object["deviceType"] = .string(deviceType) }
        object["trait"] = .string(String(assignment[..<dot]))
        object["attribute"] = .string(String(assignment[assignment.index(after: dot)..<equals]))
        object["value"] = CommandSender.value(String(assignment[assignment.index(after: equals)...]))
        try CommandSender.send(object, to: device, challenge: challenge, connection: connection)
    }
}
