import ArgumentParser
import Foundation

/// `--broker`, `--prefix` and `--timeout`, shared by the commands that talk to a running bridge.
///
/// The broker can also come from `TRAITBRIDGE_BROKER`, so a shell that exported it once (as
/// `traitbridge demo` suggests) needs no `--broker` on every command.
struct ConnectionOptions: ParsableArguments {
    static let defaultBroker = "mqtt://127.0.0.1:1883"

    @Option(name: .customLong("broker"), help: "Broker URL (default: $TRAITBRIDGE_BROKER, else mqtt://127.0.0.1:1883).")
    var brokerOption: String?
    @Option(help: "Topic prefix of the bridge.")
    var prefix = "traitbridge"
    @Option(help: "Seconds to wait for the broker and for answers.")
    var timeout: Int = 10

    var broker: String { brokerOption ?? Self.environmentBroker ?? Self.defaultBroker }

    /// `TRAITBRIDGE_BROKER`, when set and not empty.
    static var environmentBroker: String? {
        ProcessInfo.processInfo.environment["TRAITBRIDGE_BROKER"].flatMap { $0.isEmpty ? nil : $0 }
    }
}
