import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMQTT
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

/// `traitbridge command DEVICE TRAIT.COMMAND [key=value…]`: run a trait command and print its outcome.
struct CommandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "command",
        abstract: "Run a trait command on a device and print the outcome (confirmed, assumed, or the error).",
        discussion: """
            Arguments are key=value; values are read as JSON when they parse (128, true, "x"), else in a person's form when the command's field has one (level=50%, moveMode=down), else as text. Exit codes: 0 confirmed or assumed, 1 refused, 3 broker or bridge not reachable, 4 device not found.

            Examples:
              traitbridge command "Hall light" matter.OnOff.on
              traitbridge command z2m-0x00158d0001000001 matter.LevelControl.moveToLevel level=128
              traitbridge command "Hall light" matter.LevelControl.moveToLevel level=50%
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
        let name = String(command[command.index(after: dot)...])
        object["command"] = .string(name)
        var values = JSONObject()
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw ValidationError("argument '\(argument)' is not key=value")
            }
            values[String(argument[..<equals])] = CommandSender.value(
                String(argument[argument.index(after: equals)...]))
        }
        object["arguments"] = .object(try Self.personsForms(values, trait: String(command[..<dot]), command: name))
        try CommandSender.send(object, to: device, challenge: challenge, connection: connection)
    }

    /// Arguments typed as text in a person's form (`level=50%`, `moveMode=down`) as the field's model
    /// value, from the embedded catalog's fields (read only when such an argument is there); one beyond
    /// its unit is refused in that unit (exit 1).
    static func personsForms(_ values: JSONObject, trait: String, command: String) throws -> JSONObject {
        guard values.members.contains(where: { if case .string = $0.value { true } else { false } }),
            let id = TraitID(parsing: trait),
            let fields = PeoplesWords.catalog()?.trait(id)?.command(named: command)?.fields
        else { return values }
        var read = values
        for (key, value) in values.members {
            guard case .string(let text) = value, let field = fields.first(where: { $0.name == key }) else { continue }
            do throws(InputRefusal) {
                let key = ValuePresenter.key(trait: trait, attribute: key)
                if let model = try PeoplesWords.presenter.read(text, of: key, metadata: field.metadata) {
                    read[field.name] = model.jsonValue
                }
            } catch {
                printError("valueOutOfRange: \(error)")
                throw ExitCode.failure
            }
        }
        return read
    }
}
