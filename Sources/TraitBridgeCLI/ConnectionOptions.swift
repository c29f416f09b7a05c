import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMQTT

/// `--broker` and `--prefix`, shared by the commands that talk to a running bridge.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Broker URL.")
    var broker = "mqtt://127.0.0.1:1883"
    @Option(help: "Topic prefix of the bridge.")
    var prefix = "traitbridge"
    @Option(help: "Seconds to wait for the broker and for answers.")
    var timeout: Int = 10
}
