import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMQTT

/// `traitbridge command DEVICE TRAIT.COMMAND [key=value…]`: run a trait command and print its outcome.
struct CommandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "command",
        abstract: "Run a trait command on a device and print the outcome (confirmed, assumed, or the error).",
        discussion: """
            Arguments are key=value; values are read as JSON when they parse (128, true, "x"), else as text. Exit codes: 0 confirmed or assumed, 1 refused, 3 broker or bridge not reachable, 4 device not found.

            Examples:
              traitbridge command "Hall light" matter.OnOff.on
              traitbridge command z2m-0x00158d0001000001 matter.LevelControl.moveToLevel level=128
              traitbridge command Relay matter.OnOff.off --device-type switch_l2
            """
    )

    @Argument(help: "The device id or name.")
    var device: String
    @Argument(help: "TRAIT.COMMAND, e.g. matter.OnOff.on.")
    var command: String
    @Argument(help: "Command arguments as key=value.")
    var arguments: [String] = []
    @Option(help: "The device type key, when several device types hold the trait.")
    var deviceType: String?
    @OptionGroup var challenge: ChallengeOptions
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        guard let dot = command.lastIndex(of: "."), command[..<dot].contains(".") else {
            throw ValidationError("'\(command)' is not TRAIT.COMMAND; write e.g. matter.OnOff.on")
        }
        var object = JSONObject()
        if let deviceType { object["deviceType"] = .string(deviceType) }
        object["trait"] = .string(String(command[..<dot]))
        object["command"] = .string(String(command[command.index(after: dot)...]))
        var values = JSONObject()
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw ValidationError("argument '\(argument)' is not key=value")
            }
            values[String(argument[..<equals])] = CommandSender.value(String(argument[argument.index(after: equals)...]))
        }
        object["arguments"] = .object(values)
        try CommandSender.send(object, to: device, challenge: challenge, connection: connection)
    }
}
