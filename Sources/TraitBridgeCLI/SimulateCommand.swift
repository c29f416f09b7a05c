import ArgumentParser
import Foundation
import TraitBridgeLocalBroker
import TraitBridgeMQTT
import TraitBridgeSimulator

/// `traitbridge simulate`: devices that speak zigbee2mqtt, Tasmota, Shelly and HA discovery on a broker.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract:
            "Run simulated devices that speak zigbee2mqtt, Tasmota, Shelly and Home Assistant discovery on the broker.",
        discussion: """
            The devices announce themselves as the real ones do, answer commands (echoing their new state), drift sensor values and inject the scenario's faults on time (offline, flap, zigbee2mqtt bridge down, not answering). Runs until Ctrl-C or --duration. The scenario format is described in examples/demo-home.json.

            Examples:
              traitbridge simulate --scenario examples/demo-home.json
              traitbridge simulate --scenario my-home.json --broker mqtt://127.0.0.1:1884 --duration 60
              traitbridge simulate --matter ../shared/corpus/matter/nodes
            """
    )

    @Option(help: "The scenario file.")
    var scenario = "examples/demo-home.json"
    @Option(help: "Broker URL (default: $TRAITBRIDGE_BROKER, else mqtt://127.0.0.1:1883).")
    var broker: String?
    @Option(help: "Stop after this many seconds (default: until Ctrl-C).")
    var duration: Int?
    @Option(
        help: ArgumentHelp(
            "Also run a real Matter Server holding this folder's node dumps (examples/matter, "
                + "../shared/corpus/matter/nodes) and a software Matter light; its URL is printed."))
    var matter: String?

    func run() throws {
        let loaded = try Self.loadScenario(scenario)
        let url: BrokerURL
        do {
            url = try BrokerURL(broker ?? ConnectionOptions.environmentBroker ?? ConnectionOptions.defaultBroker)
        } catch { throw ValidationError(error.description) }
        Interruption.install()
        var matterDevices: DemoMatter?
        if let matter {
            matterDevices = DemoMatter.start(nodes: matter, say: { FileHandleWriter.write($0 + "\n", to: 2) })
            guard let matterDevices else { throw ExitCode.failure }
            FileHandleWriter.write(
                "Matter Server \(matterDevices.server.url): \(matterDevices.summary); "
                    + "traitbridge serve --matter-server \(matterDevices.server.url)\n", to: 1)
        }
        defer { matterDevices?.stop() }
        let simulator = try Simulator(scenario: loaded, broker: url) { line in
            FileHandleWriter.write(line + "\n", to: 1)
        }
        do { try simulator.start() } catch {
            printError("error: \(error)")
            throw ExitCode(3)
        }
        defer { simulator.stop() }
        print("simulating \(loaded.devices.count) devices on \(url); Ctrl-C stops")
        let end = duration.map { ContinuousClock.now + .seconds($0) }
        while !Interruption.isRequested, end.map({ ContinuousClock.now < $0 }) ?? true {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// The scenario, or its mistake (file:line:col) on standard error and exit 1.
    static func loadScenario(_ path: String) throws -> Scenario {
        do { return try Scenario.load(path: path) } catch {
            printError("error: \(error)")
            throw ExitCode.failure
        }
    }
}
