import ArgumentParser
import CoreMetrics
import Foundation
import Logging
import Prometheus
import ServiceLifecycle
import TraitBridgeAutomation
import TraitBridgeCloud
import TraitBridgeEmbedded
import TraitBridgeEngine
import TraitBridgeHTTP
import TraitBridgeHomeAssistant
import TraitBridgeHomeKit
import TraitBridgeMQTT
import TraitBridgeMapping
import TraitBridgeMatterServer
import TraitBridgeModel
import TraitBridgePresentation
import TraitBridgeSources
import TraitBridgeStore
import UnixSignals

/// `traitbridge serve`: run the bridge in the foreground until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: """
            Run the bridge: read zigbee2mqtt, Tasmota, Shelly, Home Assistant discovery, generic and Matter devices \
            and publish the unified model.
            """,
        discussion: """
            Stops cleanly on SIGTERM or SIGINT, publishing <prefix>/bridge/state = offline first. Flags override TRAITBRIDGE_BROKER, which overrides the config file; TRAITBRIDGE_PASSWORD overrides any password.

            Examples:
              traitbridge serve
              traitbridge serve --broker mqtt://user@192.168.1.10:1883 --data-dir /var/lib/traitbridge
              traitbridge serve --config /etc/traitbridge.json
            """
    )

    @Option(
        help:
            "Broker URL: mqtt://[user[:pass]@]host[:port] or mqtts://…  (default: $TRAITBRIDGE_BROKER, else the config file's, else mqtt://127.0.0.1:1883)"
    )
    var broker: String?
    @Option(help: "Topic prefix of the unified model (default: traitbridge).")
    var prefix: String?
    @Option(
        help: "Folder of the registry database (default: $XDG_DATA_HOME/traitbridge or ~/.local/share/traitbridge).")
    var dataDir: String?
    @Option(help: "A folder whose mappings add to or replace the embedded ones.")
    var mappings: String?
    @Option(help: "A JSON config file; see docs/configuration.md.")
    var config: String?
    @Option(help: "MQTT client id (default: traitbridge-<random>, unique per run).")
    var clientId: String?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default: info).")
    var logLevel: String?
    @Option(help: "A Matter Server's WebSocket to read Matter nodes from, e.g. ws://127.0.0.1:5580/ws.")
    var matterServer: String?
    @Option(help: "A folder of automation definitions (JSON files), checked at start.")
    var automations: String?

    func run() async throws {
        var settings = ServeConfiguration()
        if let config {
            do { settings = try ServeConfiguration.load(path: config) } catch {
                throw ValidationError(error.description)
            }
        }
        if let broker = broker ?? ConnectionOptions.environmentBroker { settings.broker = broker }
        if let prefix { settings.prefix = prefix }
        if let automations { settings.automationsFolder = automations }
        if let dataDir { settings.dataDirectory = dataDir }
        if let mappings { settings.mappingsDirectory = mappings }
        if let clientId { settings.clientID = clientId }
        if let logLevel { settings.logLevel = logLevel }
        if let matterServer {
            if let problem = MatterFamily.urlProblem(matterServer) {
                throw ValidationError("--matter-server \(matterServer): \(problem)")
            }
            settings.sources.removeAll { $0.family == MatterFamily().name && $0.name == "default" }
            settings.sources.insert(.matter(url: matterServer), at: 0)
        }
        if let password = ProcessInfo.processInfo.environment["TRAITBRIDGE_PASSWORD"] { settings.password = password }
        guard let level = Logger.Level(rawValue: settings.logLevel) else {
            throw ValidationError(
                "unknown log level '\(settings.logLevel)'; use trace, debug, info, notice, warning, error or critical")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "traitbridge")
        // Before the bridge is made: it makes its counters once, from the system bootstrapped here.
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(Self.metricsFactory(metrics))
        let bridge = try Self.makeBridge(settings, logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: BridgeService(bridge: bridge), successTerminationBehavior: .gracefullyShutdownGroup)
        ]
        // Listed after the bridge, so it stops first: no request arrives at a stopped bridge.
        let homeGraph: LinkHomeGraph
        do { homeGraph = try LinkHomeGraph(links: settings.cloudLinks, bridge: bridge) } catch {
            throw ValidationError("\(error)")
        }
        // The config file's links and the registry's (`cloud link add`, seen while serve runs).
        services.append(
            .init(
                service: CloudLinks(
                    configured: settings.cloudLinks, bridge: bridge, store: bridge.store, homeGraph: homeGraph,
                    logger: logger)))
        if !homeGraph.isEmpty && settings.http == nil {
            logger.warning(
                "cloudLinks: pushPublicKeyFile needs an http section: partners cannot push without a listener")
        }
        // What may still be refused is made before the services holding an HTTP client (one released
        // without its shutdown traps, AsyncHTTPClient's check), so a refusal ends serve with its message.
        let homeKit = try settings.homeKit.map {
            try Self.makeHomeKit($0, settings: settings, bridge: bridge, logger: logger)
        }
        let matterBridge = try settings.matterBridge.map {
            try Self.makeMatterBridge(
                $0, configurationMappings: settings.mappingsDirectory, bridge: bridge, logger: logger)
        }
        let fulfillment = try settings.http.map { http in
            let operations = OperationsEndpoints(
                bridge: bridge, registry: metrics, version: EmbeddedMappings.version, commit: EmbeddedMappings.commit)
            let presenter = try PeoplesWords.servedPresenter(
                overlay: settings.mappingsDirectory, catalog: bridge.snapshot.catalog)
            return try Self.makeFulfillment(
                http, bridge: bridge, homeGraph: homeGraph, operations: operations, presenter: presenter,
                logger: logger)
        }
        // Cameras' live view signalling (an HTTP client; idle without a camera that has an endpoint).
        services.append(.init(service: LiveViewSignalling(bridge: bridge, logger: logger)))
        for matter in MatterFamily.servers(in: settings.sources) {
            services.append(
                .init(
                    service: MatterServerConnection(
                        instance: matter.instance, url: matter.url, bridge: bridge,
                        maxMessageBytes: settings.limits.listBytes, logger: logger)))
        }
        services += (fulfillment ?? []).map { .init(service: $0) }
        if let homeKit { services.append(.init(service: homeKit)) }
        if let matterBridge { services.append(.init(service: matterBridge)) }
        if let notifier = SystemdNotifier(bridge: bridge) { services.append(.init(service: notifier)) }
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
        Self.endWithoutTeardown()
    }

    /// Ends the process once every service has stopped, without the C runtime's exit-time destructors:
    /// NIO's event loops outlive the services (the shared group lives as long as the process), and a
    /// connection accepted as a listener closed may still be set up on one while `exit` tears the Swift
    /// runtime's caches down under it (AddressSanitizer saw a SEGV in a generic type's metadata lookup
    /// after SIGTERM). Everything serve keeps is written by then; stdio is flushed first.
    static func endWithoutTeardown() -> Never {
        fflush(nil)  // every stdio stream
        _exit(0)
    }

    /// Builds the bridge from settings; every failure is a message that says what to fix.
    static func makeBridge(_ settings: ServeConfiguration, logger: Logger) throws -> Bridge {
        var url: BrokerURL
        do { url = try BrokerURL(settings.broker) } catch { throw ValidationError(error.description) }
        if let username = settings.username { url.username = username }
        if let password = settings.password { url.password = password }
        let catalog: Catalog
        let tables: SourceTables
        let cloudTable: GoogleC2CTable
        var homeAssistantExport: HomeAssistantExport?
        let mappings: MappingsFolder
        do { mappings = try MappingsFolder(overlay: settings.mappingsDirectory) } catch {
            throw ValidationError(error.description)
        }
        do {
            catalog = try CatalogLoader.load(mappingsDirectory: mappings.path)
            tables = try SourceRegistry.standard.loadTables(mappingsDirectory: mappings.path, catalog: catalog)
            cloudTable = try GoogleC2CTable.load(mappingsDirectory: mappings.path, catalog: catalog)
            if let homeAssistant = settings.homeAssistant {
                let table = try HomeAssistantExportTable.load(mappingsDirectory: mappings.path, catalog: catalog)
                let names = HomeAssistantDiscovery.Settings(
                    discoveryPrefix: homeAssistant.discoveryPrefix, bridgePrefix: settings.prefix,
                    bridgeName: homeAssistant.name, version: TraitBridgeCommand.version)
                homeAssistantExport = HomeAssistantExport(
                    discovery: HomeAssistantDiscovery(table: table, catalog: catalog, settings: names),
                    rules: homeAssistant.exportRules, skippedSources: homeAssistant.skipSources,
                    isEnabled: homeAssistant.isEnabled)
            }
        } catch {
            throw ValidationError(mappings.explain("\(error)"))
        }
        logger.info("mappings: \(mappings.description)")
        var configuration = BridgeConfiguration(
            prefix: settings.prefix, brokerDescription: url.description, sources: settings.sources,
            commandTimeout: .milliseconds(Int(settings.commandTimeoutSeconds * 1000)))
        configuration.sourceLocality = url.isLocalNetwork ? .localPeer : .remote
        configuration.limits = settings.limits
        configuration.exportRules = settings.exportRules
        configuration.homeAssistant = homeAssistantExport
        configuration.challengeRules = settings.http?.challenge ?? ChallengeRules()
        configuration.cloudLinks = Set(settings.cloudLinks.map(\.name))
        for (c2cID, target) in settings.cloudAliases { configuration.cloudAliases[c2cID] = try? DeviceID(target) }
        let store: DeviceStore
        let directory = settings.dataDirectory ?? ServeConfiguration.defaultDataDirectory
        do {
            store = try DeviceStore(directory: directory)
        } catch {
            throw ValidationError(error.description)
        }
        let history = settings.history.isEnabled ? openHistory(directory, settings.history, logger: logger) : nil
        let tls: MQTTClientConfiguration.TLS? =
            url.isTLS
            ? .init(
                caFile: settings.tlsCAFile, certificateFile: settings.tlsCertificateFile, keyFile: settings.tlsKeyFile,
                isInsecure: settings.tlsInsecure)
            : nil
        if settings.tlsInsecure {
            logger.warning(
                "TLS certificate host names are NOT verified (tls.insecure = true); anyone in the path can impersonate the broker"
            )
        }
        let client = MQTTClientConfiguration(
            broker: url, clientID: settings.clientID, keepAlive: .seconds(settings.keepAliveSeconds),
            isCleanSession: settings.isCleanSession, protocolVersion: settings.protocolVersion == "5" ? .v5 : .v311,
            tls: tls, wakeTopic: configuration.prefix + "/bridge/wake")
        let state = try BridgeState(
            configuration: configuration, catalog: catalog, tables: tables, graph: HomeGraph(), cloud: cloudTable,
            now: Date())
        var files: [Automation] = []
        if let folder = settings.automationsFolder {
            let loaded = AutomationDecoder.loadFolder(folder)
            guard loaded.problems.isEmpty else {
                throw ValidationError(
                    loaded.problems.map(\.description).joined(separator: "\n")
                        + "\n\(loaded.problems.count) problem\(loaded.problems.count == 1 ? "" : "s") in automations; "
                        + "fix them and start again"
                )
            }
            files = loaded.automations
        }
        return Bridge(
            state: state, client: client, store: store, automationFiles: files, history: history, logger: logger)
    }
}

extension ServeCommand {
    /// The HTTP listener of the `http` section, and the Home Graph reporter when it has a key; a
    /// file that cannot be read or a bad certificate or key stops `serve` before it starts, with the path.
    static func makeFulfillment(
        _ http: FulfillmentSettings, bridge: Bridge, homeGraph: LinkHomeGraph? = nil,
        operations: OperationsEndpoints? = nil, presenter: ValuePresenter = PeoplesWords.presenter, logger: Logger
    ) throws -> [any Service] {
        do {
            let tokens =
                try http.bearerTokensFile.map {
                    try StaticTokens(path: $0, defaultAgentUserID: http.defaultAgentUserID)
                } ?? StaticTokens()
            if tokens.count == 0 && http.oauth == nil {
                logger.warning(
                    "http: no bearer tokens file and no oauth section: every /smarthome request will be refused (401)")
            }
            let linking = AccountLinking(oauth: http.oauth, staticTokens: tokens, store: bridge.store)
            let feed = ChangeFeed(
                bridge: bridge, capacity: http.changeHistory, clientStallLimit: .seconds(http.stalledClientSeconds))
            let reporter = try http.homeGraph.map {
                try HomeGraphReporter(settings: $0, bridge: bridge, linking: linking, logger: logger)
            }
            let server = try FulfillmentServer.application(
                settings: http, bridge: bridge, linking: linking, logger: logger, homeGraph: homeGraph,
                operations: operations, apiDocument: EmbeddedMappings.openAPIDocument, changeFeed: feed,
                webSessions: WebSessions(secureCookie: http.tlsCertificateFile != nil), presenter: presenter,
                onListening: { base in
                    let linking =
                        http.oauth == nil ? "" : "; account linking at \(base)/oauth/authorize and /oauth/token"
                    logger.notice("smart-home fulfillment on \(base)/smarthome\(linking)")
                    let signIn =
                        http.oauth == nil
                        ? "nobody can sign in: give http.oauth a user and passwordFile"
                        : "sign in as \(http.oauth?.user ?? "")"
                    logger.notice("web UI on \(base)/ui/ (\(signIn)); HTTP API on \(base)/api/v1/")
                })
            return [server, feed] + (reporter.map { [$0] } ?? [])
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

extension ServeCommand {
    /// The HomeKit bridge of the `homekit` section, with the table of the mappings folder.
    static func makeHomeKit(
        _ homeKit: HomeKitBridge.Settings, settings: ServeConfiguration, bridge: Bridge, logger: Logger
    ) throws -> HomeKitBridges {
        let mappings: MappingsFolder
        do { mappings = try MappingsFolder(overlay: settings.mappingsDirectory) } catch {
            throw ValidationError(error.description)
        }
        let table: HomeKitTable
        do { table = try HomeKitTable.load(mappingsDirectory: mappings.path, catalog: bridge.snapshot.catalog) } catch {
            throw ValidationError(mappings.explain("\(error)"))
        }
        guard let store = bridge.store else {
            throw ValidationError("homekit: the bridge has no registry to keep its pairings in; give it a dataDir")
        }
        do {
            return try HomeKitBridges(
                bridge: bridge, store: store, table: table, settings: homeKit, version: EmbeddedMappings.version,
                logger: logger)
        } catch {
            throw ValidationError("homekit: \(error)")
        }
    }
}

/// The bridge as a swift-service-lifecycle service: runs until graceful shutdown, then stops.
struct BridgeService: Service {
    let bridge: Bridge

    func run() async throws {
        try bridge.start()
        try? await gracefulShutdown()
        bridge.stop()
    }
}

extension ServeCommand {
    /// Prometheus behind swift-metrics, with histogram buckets that fit what each timer measures
    /// (a message takes microseconds; a command, a registry write or a link request much longer).
    static func metricsFactory(_ registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        let micro: [Duration] = [10, 25, 50, 100, 250, 500, 1_000, 2_500, 10_000, 50_000, 250_000, 1_000_000]
            .map { .microseconds($0) }
        let milli: [Duration] = [1, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000]
            .map { .milliseconds($0) }
        factory.durationHistogramBuckets = [
            "traitbridge_message_handling_seconds": micro, "traitbridge_registry_write_seconds": milli,
            "traitbridge_command_duration_seconds": milli, "traitbridge_cloud_link_request_duration_seconds": milli,
        ]
        return factory
    }
}
