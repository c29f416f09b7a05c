import ArgumentParser
import Foundation
import TraitBridgeMQTT

/// `--broker`, `--prefix`, `--timeout` and the broker's credentials and TLS files, shared by the
/// commands that talk to a running bridge, so a broker that needs a login or a client
/// certificate serves the CLI as it serves `serve`.
///
/// The broker can also come from `TRAITBRIDGE_BROKER` and the password from
/// `TRAITBRIDGE_PASSWORD`, so a shell that exported them once needs neither on every command.
/// A password is never printed: messages name the broker as `mqtt://user:***@host:port`.
struct ConnectionOptions: ParsableArguments {
    static let defaultBroker = "mqtt://127.0.0.1:1883"

    @Option(name: .customLong("broker"), help: "Broker URL (default: $TRAITBRIDGE_BROKER, else mqtt://127.0.0.1:1883).")
    var brokerOption: String?
    @Option(help: "Topic prefix of the bridge.")
    var prefix = "traitbridge"
    @Option(help: "Seconds to wait for the broker and for answers.")
    var timeout: Int = 10
    @Option(help: "User name on the broker (overrides one in the URL).")
    var username: String?
    @Option(help: "File holding the broker password (default: $TRAITBRIDGE_PASSWORD).")
    var passwordFile: String?
    @Option(help: "CA certificates (PEM) that sign an mqtts:// broker's certificate.")
    var caFile: String?
    @Option(help: "Client certificate (PEM) for an mqtts:// broker that asks for one.")
    var certFile: String?
    @Option(help: "Key (PEM) of the client certificate.")
    var keyFile: String?

    var broker: String { brokerOption ?? Self.environmentBroker ?? Self.defaultBroker }

    /// The broker as messages may show it: the password masked, even in a URL that does not parse.
    var brokerForDisplay: String { (try? BrokerURL(broker))?.description ?? BrokerURL.redacting(broker) }

    /// `TRAITBRIDGE_BROKER`, when set and not empty.
    static var environmentBroker: String? {
        ProcessInfo.processInfo.environment["TRAITBRIDGE_BROKER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The client configuration for these options; the error says which option to fix.
    func clientConfiguration(clientID: String? = nil, protocolVersion: MQTTClientConfiguration.ProtocolVersion = .v311) throws
        -> MQTTClientConfiguration
    {
        var url: BrokerURL
        do { url = try BrokerURL(broker) } catch { throw ValidationError(error.description) }
        if let username { url.username = username }
        if let passwordFile {
            guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                throw ValidationError("cannot read the password file '\(passwordFile)'; check --password-file")
            }
            url.password = text.trimmingCharacters(in: .whitespacesAndNewlines)
        } else if let password = ProcessInfo.processInfo.environment["TRAITBRIDGE_PASSWORD"], !password.isEmpty {
            url.password = password
        }
        for (option, file) in [("--ca-file", caFile), ("--cert-file", certFile), ("--key-file", keyFile)] {
            if let file, !FileManager.default.isReadableFile(atPath: file) {
                throw ValidationError("cannot read \(option) '\(file)'")
            }
        }
        if !url.isTLS, caFile != nil || certFile != nil || keyFile != nil {
            throw ValidationError("--ca-file, --cert-file and --key-file need an mqtts:// broker; the broker is \(url)")
        }
        let tls = url.isTLS ? MQTTClientConfiguration.TLS(caFile: caFile, certificateFile: certFile, keyFile: keyFile) : nil
        return MQTTClientConfiguration(
            broker: url, clientID: clientID, protocolVersion: protocolVersion, tls: tls,
            wakeTopic: prefix + "/cli/marker/wake")  // a viewer may write there (examples/mosquitto.acl)
    }
}
