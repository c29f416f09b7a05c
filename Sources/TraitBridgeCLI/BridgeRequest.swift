import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMQTT

/// One request to the running bridge and its answer, over MQTT 5 request/response: published on
/// `<prefix>/bridge/request/<operation>/<correlation>` with the Response Topic
/// `<prefix>/bridge/response/<operation>/<correlation>` and the correlation id as Correlation Data.
/// (The correlation level in the topic lets a bridge configured for MQTT 3.1.1, which never sees
/// the properties, answer on the same topic.)
enum BridgeRequest {
    /// The answer's bytes; exit 3 when the broker or the bridge does not answer in time.
    static func send(_ operation: String, payload: [UInt8], connection: ConnectionOptions) throws -> [UInt8] {
        let configuration = try connection.clientConfiguration(
            clientID: MQTTClientConfiguration.uniqueClientID(prefix: "traitbridge-cli"), protocolVersion: .v5)
        let correlation = MQTTClientConfiguration.uniqueClientID(prefix: "req")
        let responseTopic = "\(connection.prefix)/bridge/response/\(operation)/\(correlation)"
        let answer = Answer()
        let client = try MQTTClient(
            configuration: configuration,
            onMessage: { message in
                // A v5 bridge echoes the correlation data; a 3.1.1 bridge cannot, the topic says it.
                guard message.topic == responseTopic,
                    message.correlationData.map({ $0 == Array(correlation.utf8) }) ?? true
                else { return }
                answer.set(message.payload)
            })
        client.subscribe(responseTopic, qos: 1)
        client.start()
        defer { client.stop() }
        let deadline = ContinuousClock.now + .seconds(connection.timeout)
        let progress = TerminalStyle.standardError  // a person at a terminal sees what it waits for
        defer { progress.endProgress() }
        while !client.isConnected && ContinuousClock.now < deadline {
            progress.progress("connecting to \(connection.brokerForDisplay)…")
            Thread.sleep(forTimeInterval: 0.01)
        }
        guard client.isConnected else {
            printError("error: cannot reach the broker \(connection.brokerForDisplay) within \(connection.timeout) s")
            throw ExitCode(3)
        }
        Thread.sleep(forTimeInterval: 0.05)  // let the subscription settle before the request goes out
        let requestTopic = "\(connection.prefix)/bridge/request/\(operation)/\(correlation)"
        let mid = try client.publish(
            requestTopic, payload: payload, qos: 1, responseTopic: responseTopic,
            correlationData: Array(correlation.utf8))
        let sent = ContinuousClock.now
        while ContinuousClock.now < deadline {
            if let bytes = answer.get() { return bytes }
            if let reason = client.refusal(of: mid) {
                progress.endProgress()
                printError(
                    "error: the broker refused the request (\(reason)): this user may not publish \(requestTopic); "
                        + "this request needs the admin role (scene-run and group-command: the control role; "
                        + "docs/security.md)"
                )
                throw ExitCode.failure
            }
            let waited = (ContinuousClock.now - sent).components.seconds
            if waited >= 1 {
                progress.progress(
                    "waiting for the bridge to answer '\(operation)' (\(payload.count / 1024) KiB sent, \(waited) s)…")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        printError(
            "error: the bridge did not answer '\(operation)' within \(connection.timeout) s; is `traitbridge serve` running with prefix '\(connection.prefix)'? (traitbridge status)"
        )
        throw ExitCode(3)
    }

    /// The answer as JSON; a `{"status": "error"}` answer prints its message and exits 1.
    static func json(_ operation: String, payload: [UInt8], connection: ConnectionOptions) throws -> (
        bytes: [UInt8], root: JSON
    ) {
        let bytes = try send(operation, payload: payload, connection: connection)
        let root: JSON
        do { root = try JSONDocument.parse(bytes, maxDepth: 128).root } catch {
            printError("error: the bridge answered with something that is not JSON: \(error)")
            throw ExitCode.failure
        }
        if root["status"]?.isString("error") == true {
            printError("error: \(root["message"]?.string ?? "the bridge refused the request")")
            throw ExitCode.failure
        }
        return (bytes, root)
    }

    /// A file's bytes, or standard input for `-`; unreadable files exit 1 with the path.
    static func input(_ path: String) throws -> [UInt8] {
        if path == "-" { return [UInt8](FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: path) else {
            printError("error: cannot read \(path): no such file, or not readable")
            throw ExitCode.failure
        }
        return [UInt8](data)
    }

    private final class Answer: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8]?
        func set(_ value: [UInt8]) { lock.withLock { bytes = value } }
        func get() -> [UInt8]? { lock.withLock { bytes } }
    }
}

/// Writes JSON for programs (pretty, one document, newline-terminated).
func printJSON(_ bytes: [UInt8]) {
    if let pretty = try? JSONDocument.parse(bytes, maxDepth: 128).root.value.serialized(.pretty) {
        print(pretty)
    } else {
        print(String(decoding: bytes, as: UTF8.self))
    }
}
