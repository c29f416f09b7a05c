import Dispatch
import Foundation
import Logging
import ServiceLifecycle
import TraitBridgeCloud
import TraitBridgeEmbedded
import TraitBridgeEngine
import TraitBridgeHTTP
import TraitBridgeLocalBroker
import TraitBridgeMQTT
import TraitBridgeModel
import TraitBridgeSimulator

/// The demo's partner cloud: a second bridge on its own private broker that bridges the cloud
/// scenario's devices and serves them as a Google Cloud-to-cloud partner on loopback (SYNC, QUERY,
/// EXECUTE with a token made for this run), so the demo's bridge links to it as Google links to
/// a partner — and a command that goes the cloud's way comes back confirmed.
final class DemoCloud {
    let broker: MosquittoBroker
    let bridge: Bridge
    let simulator: Simulator
    let server: BackgroundServer
    /// The link the demo's bridge makes to it.
    let link: CloudLinkSettings

    init(scenario: Scenario, work: URL, mappings: String?, logger: Logger, say: @escaping @Sendable (String) -> Void)
        throws
    {
        broker = try MosquittoBroker()
        var settings = ServeConfiguration()
        settings.broker = broker.url
        settings.dataDirectory = work.appendingPathComponent("cloud-data").path
        settings.mappingsDirectory = mappings
        settings.commandTimeoutSeconds = 3
        // As some vendors' clouds do for plugs (a heater may hang on one), the partner asks the user
        // to confirm each command on its outlets: the Garden plug shows the challenge (ackNeeded).
        var partnerHTTP = FulfillmentSettings()
        partnerHTTP.challenge = ChallengeRules(ackDevices: .init(types: ["OUTLET"]))
        settings.http = partnerHTTP
        do {
            bridge = try ServeCommand.makeBridge(settings, logger: logger)
            try bridge.start()
            simulator = try Simulator(scenario: scenario, broker: try BrokerURL(broker.url)) { line in
                say("   cloud simulator \(line)")
            }
            try simulator.start()
        } catch {
            broker.stop()
            throw error
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while bridge.snapshot.graph.devices.count < scenario.devices.count, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let token = "tb-demo-cloud-" + UUID().uuidString.lowercased()
        do { server = try Self.fulfillment(for: bridge, token: token, agent: "demo-cloud", logger: logger) } catch {
            simulator.stop()
            bridge.stop()
            broker.stop()
            throw error
        }
        var link = CloudLinkSettings(name: "partner", url: server.baseURL + "/smarthome", token: token)
        link.pollInterval = .seconds(5)
        link.syncInterval = .seconds(60)
        self.link = link
    }

    /// Google's fulfillment endpoint for `bridge` on a free loopback port, opened by `token`
    /// alone (made for this run; it dies with the demo): the partner cloud's, and the demo's own.
    /// With `sessions`, the HTTP API, its change stream and the web UI are served too.
    static func fulfillment(
        for bridge: Bridge, token: String, agent: String, sessions: WebSessions? = nil, logger: Logger
    ) throws -> BackgroundServer {
        var http = FulfillmentSettings()
        http.port = 0
        let tokens = try StaticTokens(text: token, path: "demo", defaultAgentUserID: agent)
        let linking = AccountLinking(oauth: nil, staticTokens: tokens, store: bridge.store)
        let feed = sessions.map { _ in ChangeFeed(bridge: bridge) }
        return try BackgroundServer(
            build: { onListening in
                try FulfillmentServer.application(
                    settings: http, bridge: bridge, linking: linking, logger: logger,
                    apiDocument: sessions == nil ? nil : EmbeddedMappings.openAPIDocument, changeFeed: feed,
                    webSessions: sessions, presenter: PeoplesWords.presenter, onListening: onListening)
            }, companions: feed.map { [$0] } ?? [], logger: logger)
    }

    /// The broker's process and folder, for the demo's orphan guard.
    var pid: Int32? { broker.pid }

    func stop() {
        server.stop()
        simulator.stop()
        bridge.stop()
        broker.stop()
    }
}

/// A service run beside the demo's synchronous code: started on a task, stopped gracefully.
final class DemoService: Sendable {
    private let group: ServiceGroup
    private let finished = DispatchSemaphore(value: 0)

    init(_ service: any Service, logger: Logger) {
        group = ServiceGroup(configuration: .init(services: [service], logger: logger))
        Task { [group, finished] in
            try? await group.run()
            finished.signal()
        }
    }

    /// Stops it and waits (up to 5 s).
    func stop() {
        Task { [group] in await group.triggerGracefulShutdown() }
        _ = finished.wait(timeout: .now() + 5)
    }
}
