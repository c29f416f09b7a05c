import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMQTT

/// Publishes a unified command and waits for its result on `…/set/result`.
enum CommandSender {
    static func value(_ text: String) -> JSONValue {
        (try? JSONDocument.parse(text).root.value) ?? .string(text)
    }

    static func send(
        _ command: JSONObject, to device: String, challenge: ChallengeOptions, connection: ConnectionOptions
    ) throws {
        let snapshot = try BridgeSnapshot.readOrExit(connection)
        let id = try snapshot.deviceID(device, prefix: connection.prefix)
        let described = Described(state: snapshot.states[id], description: snapshot.descriptions[id])
        let outcome = try outcome(
            of: described.reading(command), toID: id, named: device, challenge: challenge, connection: connection)
        let status = outcome["status"]?.string ?? "?"
        let shown = status == "confirmed" ? outcome["values"] : outcome["requested"]
        let values = (shown?.members ?? []).map { described.line($0.key, $0.value.value) }.joined(separator: ", ")
        switch status {
        case "confirmed": print("confirmed: \(values)")
        default:
            let why = outcome["message"]?.string ?? "the device has not echoed it yet"
            print("assumed: sent \(values); \(why)")
        }
    }

    /// Sends the command (asking a partner's challenge once at a terminal) and returns its result;
    /// a refusal is printed and exits 1 (4 for a device not found).
    static func outcome(
        of command: JSONObject, to device: String, challenge: ChallengeOptions, connection: ConnectionOptions
    ) throws -> JSON {
        let id = try BridgeSnapshot.readOrExit(connection).deviceID(device, prefix: connection.prefix)
        return try outcome(of: command, toID: id, named: device, challenge: challenge, connection: connection)
    }

    private static func outcome(
        of command: JSONObject, toID id: String, named device: String, challenge: ChallengeOptions,
        connection: ConnectionOptions
    ) throws -> JSON {
        var command = command
        command.setIfPresent("challenge", challenge.challenge)
        var outcome = try sendOnce(command, to: id, connection: connection)
        // A partner cloud that wants the user's yes or PIN: asked once at a terminal, then sent again.
        if outcome["code"]?.string == "challengeNeeded", let type = outcome["challenge"]?.string,
            let answer = ChallengeOptions.ask(type, what: device)
        {
            command["challenge"] = answer
            outcome = try sendOnce(command, to: id, connection: connection)
        }
        let status = outcome["status"]?.string ?? "?"
        if status == "error" {
            let code = outcome["code"]?.string ?? "error"
            printError("\(code): \(outcome["message"]?.string ?? "")")
            throw code == "deviceNotFound" ? ExitCode(4) : ExitCode.failure
        }
        return outcome
    }

    /// Publishes the command once and waits for its outcome.
    private static func sendOnce(_ command: JSONObject, to id: String, connection: ConnectionOptions) throws -> JSON {
        var command = command
        let correlation = MQTTClientConfiguration.uniqueClientID(prefix: "cli")
        command["id"] = .string(correlation)
        let resultTopic = "\(connection.prefix)/devices/\(id)/set/result"
        let results = Results()
        // MQTT 5: a broker that refuses the command (its ACL) says so in the PUBACK.
        let client = try MQTTClient(
            configuration: try connection.clientConfiguration(protocolVersion: .v5), onMessage: { results.add($0) })
        client.subscribe(resultTopic, qos: 1)
        client.start()
        defer { client.stop() }
        var deadline = ContinuousClock.now + .seconds(connection.timeout)
        while !client.isConnected && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        guard client.isConnected else {
            printError("error: cannot reach the broker \(connection.brokerForDisplay) within \(connection.timeout) s")
            throw ExitCode(3)
        }
        let commandTopic = "\(connection.prefix)/devices/\(id)/set"
        let mid = try client.publish(commandTopic, payload: JSONValue.object(command).serializedBytes(), qos: 1)
        var outcome: JSON?
        while outcome == nil && ContinuousClock.now < deadline {
            if let reason = client.refusal(of: mid) {
                printError(
                    "error: the broker refused the command (\(reason)): this user may not publish \(commandTopic); "
                        + "commands need the control role (docs/security.md)")
                throw ExitCode.failure
            }
            outcome = results.find(correlation)
            // PENDING from a partner cloud: the outcome comes with its follow-up, later.
            if let interim = outcome, interim["status"]?.string == "pending" {
                if !results.notedPending {
                    results.notedPending = true
                    printError("pending: \(interim["message"]?.string ?? "")")
                    let wait = Int(interim["waitSeconds"]?.int64.map { min(max($0, 0), 3600) } ?? 60)
                    deadline = max(deadline, ContinuousClock.now + .seconds(wait + 5))
                }
                outcome = nil
            }
            if outcome == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
        guard let outcome else {
            printError("error: no outcome within \(connection.timeout) s; is the bridge running (traitbridge status)?")
            throw ExitCode(3)
        }
        return outcome
    }

    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var payloads: [[UInt8]] = []

        func add(_ message: MQTTMessage) { lock.withLock { payloads.append(message.payload) } }

        var notedPending = false

        /// The final outcome for `correlation` when there is one, else a `pending` note, else `nil`.
        func find(_ correlation: String) -> JSON? {
            lock.withLock {
                let mine = payloads.lazy.compactMap { try? JSONDocument.parse($0).root }
                    .filter { $0["id"]?.isString(correlation) == true }
                return mine.first { $0["status"]?.string != "pending" } ?? mine.first
            }
        }
    }
}
