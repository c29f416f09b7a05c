import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMQTT

/// `traitbridge command` and `traitbridge set`: send a unified command and print its outcome.
struct CommandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "command",
        abstract: "Run a trait command on a device and print the outcome (confirmed, assumed, or the error).",
        discussion: """
            Arguments are key=value; values are read as JSON when they parse (128, true, "x"), else as text. Exit codes: 0 confirmed or assumed, 1 refused, 3 broker not reachable, 4 device not found.

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
        try CommandSender.send(object, to: device, connection: connection)
    }
}

/// `traitbridge set DEVICE TRAIT.ATTRIBUTE=VALUE`.
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Write one attribute of a device and print the outcome.",
        discussion: """
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
        try CommandSender.send(object, to: device, connection: connection)
    }
}

/// `--broker` and `--prefix`, shared by the commands that talk to a running bridge.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Broker URL.")
    var broker = "mqtt://127.0.0.1:1883"
    @Option(help: "Topic prefix of the bridge.")
    var prefix = "traitbridge"
    @Option(help: "Seconds to wait for the broker and for answers.")
    var timeout: Int = 10
}

/// Publishes a unified command and waits for its result on `…/set/result`.
enum CommandSender {
    static func value(_ text: String) -> JSONValue {
        (try? JSONDocument.parse(text).root.value) ?? .string(text)
    }

    static func send(_ command: JSONObject, to device: String, connection: ConnectionOptions) throws {
        let id = try BridgeSnapshot.readOrExit(connection).deviceID(device, prefix: connection.prefix)
        var command = command
        let correlation = MQTTClientConfiguration.uniqueClientID(prefix: "cli")
        command["id"] = .string(correlation)
        let resultTopic = "\(connection.prefix)/devices/\(id)/set/result"
        let results = Results()
        let url = try BrokerURL(connection.broker)
        let client = try MQTTClient(configuration: MQTTClientConfiguration(broker: url), onMessage: { results.add($0) })
        client.subscribe(resultTopic, qos: 1)
        client.start()
        defer { client.stop() }
        let deadline = ContinuousClock.now + .seconds(connection.timeout)
        while !client.isConnected && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        try client.publish("\(connection.prefix)/devices/\(id)/set", payload: JSONValue.object(command).serializedBytes(), qos: 1)
        var outcome: JSON?
        while outcome == nil && ContinuousClock.now < deadline {
            outcome = results.find(correlation)
            if outcome == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
        guard let outcome else {
            printError("error: no outcome within \(connection.timeout) s; is the bridge running (traitbridge status)?")
            throw ExitCode.failure
        }
        let status = outcome["status"]?.string ?? "?"
        if status == "error" {
            let code = outcome["code"]?.string ?? "error"
            printError("\(code): \(outcome["message"]?.string ?? "")")
            throw code == "deviceNotFound" ? ExitCode(4) : ExitCode.failure
        }
        let shown = status == "confirmed" ? outcome["values"] : outcome["requested"]
        let values = (shown?.members ?? []).map { "\($0.key) = \($0.value.value.serialized())" }.joined(separator: ", ")
        switch status {
        case "confirmed": print("confirmed: \(values)")
        default: print("assumed: sent \(values); the device has not echoed it yet")
        }
    }

    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var payloads: [[UInt8]] = []

        func add(_ message: MQTTMessage) { lock.withLock { payloads.append(message.payload) } }

        func find(_ correlation: String) -> JSON? {
            lock.withLock {
                payloads.lazy.compactMap { try? JSONDocument.parse($0).root }.first { $0["id"]?.isString(correlation) == true }
            }
        }
    }
}
