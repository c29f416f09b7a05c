import ArgumentParser
import Foundation
import Logging
import TraitBridgeEngine
import TraitBridgeHTTP
import TraitBridgeJSON
import TraitBridgeLocalBroker
import TraitBridgeMQTT
import TraitBridgeMatterServer
import TraitBridgeModel
import TraitBridgeSimulator
import TraitBridgeSources

/// `traitbridge demo`: a live home in one command — private broker, simulated devices, the
/// bridge, a partner cloud linked and merged in, `status`, then `watch` until Ctrl-C.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Start a private broker, a simulated home and the bridge, link a partner cloud, and show status and "
            + "changes.",
        discussion: """
            Everything runs on this machine: a private mosquitto on a free 127.0.0.1 port (or --broker), the \
            devices of the scenario (zigbee2mqtt, Tasmota, Shelly, Home Assistant discovery, a Frigate camera), the \
            bridge, and a \
            partner cloud: a second bridge on its own private broker serving the --cloud scenario's devices over \
            Google's Cloud-to-cloud API, which the bridge links to as Google would (SYNC, QUERY polling, EXECUTE). \
            With the Matter Server installed (scripts/install-matter-server.sh) and root, a real Matter Server \
            holds the --matter folder's node dumps and commissions a software Matter light, both inside a \
            network namespace (scripts/sandbox.sh: their mDNS never reaches the machine's network). Above the \
            devices it makes a zone, a group and two scenes, and the bridge runs the --automations folder's \
            automations. It prints `traitbridge status` and that layout once the scenario's faults have \
            happened, then streams changes like \
            `traitbridge watch` until Ctrl-C (--once: exit after the status). Everything it started is stopped \
            on the way out.

            Examples:
              traitbridge demo
              traitbridge demo --once
              traitbridge demo --scenario my-home.json --broker mqtt://127.0.0.1:1884
            """
    )

    @Option(help: "The scenario file.")
    var scenario = "examples/demo-home.json"
    @Option(help: "The partner cloud's scenario (served by a second bridge the demo links to); none: no cloud.")
    var cloud = "examples/demo-cloud-home.json"
    @Option(help: "Matter node dumps for a real Matter Server to hold; none: no Matter devices.")
    var matter = "examples/matter"
    @Option(help: "Automation definitions for the bridge (serve --automations); none: no automations.")
    var automations = "examples/automations"
    @Option(help: "Use this broker instead of starting a private mosquitto.")
    var broker: String?
    @Option(help: "A folder whose mappings add to or replace the embedded ones.")
    var mappings: String?
    @Flag(help: "Print the status table and exit instead of watching.")
    var once = false
    @Option(help: "The bridge's log level on standard error.")
    var logLevel = "error"

    func run() throws {
        let style = TerminalStyle.standardError
        let home = try SimulateCommand.loadScenario(scenario)
        let cloudHome = cloud == "none" ? nil : try SimulateCommand.loadScenario(cloud)
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError(
                "unknown log level '\(logLevel)'; use trace, debug, info, notice, warning, error or critical")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        Interruption.install()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "traitbridge-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }

        var privateBroker: MosquittoBroker?
        defer { privateBroker?.stop() }
        let brokerURL: String
        if let broker {
            brokerURL = broker
        } else {
            style.progress("starting a private mosquitto on 127.0.0.1…")
            do { privateBroker = try MosquittoBroker() } catch {
                style.endProgress()
                printError("error: \(error); or pass --broker mqtt://host:port")
                throw ExitCode.failure
            }
            brokerURL = privateBroker?.url ?? ""
        }
        style.endProgress()
        // Never a password.
        let shownBroker = (try? BrokerURL(brokerURL))?.description ?? BrokerURL.redacting(brokerURL)
        let privatePID = privateBroker.map { " (private mosquitto, pid \($0.pid.map(String.init) ?? "?"))" } ?? ""
        say("== broker \(shownBroker)\(privatePID)")
        let logger = Logger(label: "traitbridge")
        var partner: DemoCloud?
        if let cloudHome {
            style.progress("starting the partner cloud: a second bridge on its own private mosquitto…")
            do {
                partner = try DemoCloud(scenario: cloudHome, work: work, mappings: mappings, logger: logger) { line in
                    FileHandleWriter.write(line + "\n", to: 1)
                }
            } catch {
                style.endProgress()
                printError("error: the partner cloud did not start: \(error)")
                throw ExitCode.failure
            }
            style.endProgress()
        }
        defer { partner?.stop() }
        var matterDevices: DemoMatter?
        if matter != "none" {
            style.progress("starting a Matter Server and a software Matter light on 127.0.0.1…")
            matterDevices = DemoMatter.start(
                nodes: matter,
                say: {
                    style.endProgress()
                    say($0)
                })
            style.endProgress()
        }
        defer { matterDevices?.stop() }
        let cameras = home.devices.filter { $0.deviceProtocol == .frigate }
        var camera: DemoCamera?
        if !cameras.isEmpty {
            style.progress("starting the camera's WebRTC endpoint (aiortc, go2rtc's API) in a network sandbox…")
            camera = DemoCamera.start(
                streams: cameras.map(\.id), work: work,
                say: {
                    style.endProgress()
                    say($0)
                })
            style.endProgress()
        }
        defer { camera?.stop() }
        // Killed with SIGKILL, the demo cannot stop its brokers or remove its folders: this does.
        let orphanGuard = try? OrphanGuard(
            children: [privateBroker?.pid, partner?.pid].compactMap { $0 } + (matterDevices?.pids ?? [])
                + (camera?.pids ?? []),
            folders: [work.path] + [privateBroker?.directory.path, partner?.broker.directory.path].compactMap { $0 }
                + (matterDevices?.folders ?? []))
        defer { orphanGuard?.dismiss() }
        if let partner {
            let pid = partner.pid.map(String.init) ?? "?"
            let count = partner.bridge.snapshot.graph.devices.count
            say(
                "== partner cloud \(partner.link.url): a second bridge on its own private mosquitto (pid \(pid)), "
                    + "\(count) devices")
        }

        var settings = ServeConfiguration()
        settings.broker = brokerURL
        settings.dataDirectory = work.appendingPathComponent("data").path
        settings.mappingsDirectory = try DemoCamera.mappings(for: home, beside: scenario, given: mappings, work: work)
        settings.commandTimeoutSeconds = 3
        settings.automationsFolder = automations == "none" ? nil : automations
        settings.cloudLinks = partner.map { [$0.link] } ?? []
        settings.homeAssistant = HomeAssistantSettings()  // Home Assistant discovery on the demo's broker
        if !cameras.isEmpty {
            // The home's camera: Frigate is read only when asked for; its live view where it can be.
            settings.sources.append(.frigate(go2rtc: camera?.go2rtc))
            if let camera {
                say("== the camera's live view: go2rtc's API at \(camera.go2rtc) (aiortc, in \(camera.sandbox.name))")
            }
        }
        if let matterDevices {
            settings.sources.append(.matter(url: matterDevices.server.url))
            say(
                "== Matter Server \(matterDevices.server.url) (python-matter-server, "
                    + "pid \(matterDevices.server.pid.map(String.init) ?? "?")): \(matterDevices.summary)"
            )
        }
        let bridge = try ServeCommand.makeBridge(settings, logger: logger)
        try bridge.start()
        defer { bridge.stop() }
        let matterConnection = matterDevices.map {
            DemoService(
                MatterServerConnection(
                    instance: "default", url: $0.server.url, bridge: bridge, maxMessageBytes: settings.limits.listBytes,
                    logger: logger), logger: logger)
        }
        defer { matterConnection?.stop() }
        let links = DemoService(
            CloudLinks(
                configured: settings.cloudLinks, bridge: bridge, store: nil,
                homeGraph: try LinkHomeGraph(links: [], bridge: bridge), logger: logger), logger: logger)
        defer { links.stop() }
        let signalling = DemoService(LiveViewSignalling(bridge: bridge, logger: logger), logger: logger)
        defer { signalling.stop() }

        let url: BrokerURL
        do { url = try BrokerURL(brokerURL) } catch { throw ValidationError(error.description) }
        let simulator = try Simulator(scenario: home, broker: url) { line in
            FileHandleWriter.write("   simulator \(line)\n", to: 1)
        }
        do { try simulator.start() } catch {
            printError("error: \(error)")
            throw ExitCode(3)
        }
        defer { simulator.stop() }
        say("== simulating \(home.devices.count) devices: \(home.devices.map(\.name).joined(separator: ", "))")

        // A camera's settings (cam2mqtt) join the camera: no device of their own.
        let expected = home.devices.count { $0.deviceProtocol != .cam2mqtt } + (matterDevices?.expectedDevices ?? 0)
        let deadline = ContinuousClock.now + .seconds(30)
        var seen = 0
        while ContinuousClock.now < deadline, !Interruption.isRequested {
            // The home's own devices (the partner's come by the link, counted below).
            seen =
                bridge.snapshot.graph.devices.values.filter { device in
                    device.sources.contains { partner == nil || $0.instance != partner?.link.name }
                }.count
            style.progress("waiting for the bridge to discover the devices: \(seen)/\(expected)")
            if seen >= expected { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        style.endProgress()
        say("== the bridge discovered \(seen) of \(expected) devices")
        if Interruption.isRequested { return }

        let connection = try ConnectionOptions.parse(["--broker", brokerURL])
        if let partner, let cloudHome { waitForLink(partner, cloudHome, bridge: bridge) }

        try place(home, in: bridge, connection: connection)
        if let matterDevices, try matterDevices.place(in: bridge, connection: connection) > 0 {
            say("== named the software Matter light \"Reading lamp\" and put the Matter devices in the Living room")
        }

        for line in try DemoLayout.build(in: bridge, connection: connection) { say(line) }
        if let line = DemoCamera.settings(of: home, in: bridge) { say(line) }
        if let camera, let name = cameras.first?.name {
            style.progress("watching \(name)'s live view from a viewer in the sandbox…")
            let seen = camera.watch(camera: name, broker: brokerURL, seconds: 2)
            style.endProgress()
            say(
                "== live view of \(name) (traitbridge camera live relays the offer; media never passes the bridge): "
                    + seen
            )
        }

        // HomeKit and the Matter bridge announce through one Avahi, in the Matter Server's sandbox when there is one.
        let homeKit = DemoHomeKit.run(
            bridge: bridge, settings: settings, sandbox: matterDevices?.server.sandbox ?? camera?.sandbox, work: work,
            logger: logger, say: { say($0) })
        defer { homeKit?.stop() }
        let matterBridge = matterDevices.flatMap { matter in
            style.progress("Matter: announcing the bridge in the Matter Server's sandbox, which commissions it…")
            defer { style.endProgress() }
            return DemoMatterBridge.run(
                bridge: bridge, settings: settings, matter: matter, responder: homeKit != nil, work: work,
                logger: logger,
                say: {
                    style.endProgress()
                    say($0)
                })
        }
        for line in matterBridge?.summary ?? [] { say(line) }
        defer { matterBridge?.stop() }

        let faultDeadline = ContinuousClock.now + .seconds(Int(home.faults.map(\.afterSeconds).max() ?? 0) + 30)
        while simulator.pendingFaults > 0, ContinuousClock.now < faultDeadline, !Interruption.isRequested {
            style.progress("waiting for the scenario's faults: \(simulator.pendingFaults) to come")
            Thread.sleep(forTimeInterval: 0.05)
        }
        style.endProgress()
        Thread.sleep(forTimeInterval: 0.3)  // the bridge publishes what the last fault changed

        say("== traitbridge status --broker \(shownBroker)")
        let snapshot: BridgeSnapshot
        do { snapshot = try BridgeSnapshot.read(broker: brokerURL, prefix: settings.prefix) } catch {
            printError("error: \(error)")
            throw ExitCode(3)
        }
        let rows = StatusRow.rows(snapshot)
        say(
            StatusRow.table(rows, bridge: snapshot.bridgeState, prefix: settings.prefix, style: .standardOutput),
            terminator: "")
        say("== the home above the devices (traitbridge zone list, group list, scene list, automation list):")
        for line in DemoLayout.summary(snapshot) { say("   \(line)") }
        let given = bridge.snapshot.homeAssistantGiven
        say(
            "== Home Assistant MQTT discovery: \(given.devices) devices as \(given.entities) entities, each with "
                + "its traits' availability, on homeassistant/device/+/config (point Home Assistant's MQTT "
                + "integration at \(shownBroker) to see them; the devices it announced itself are not given back)")
        if once || Interruption.isRequested { return }
        // Google's side: the fulfillment endpoint on a free loopback port, with a token made for
        // this run only (it dies with the demo), so the curl line works as printed.
        let token = "tb-demo-" + UUID().uuidString.lowercased()
        let fulfillment: BackgroundServer
        let sessions = WebSessions()
        do {
            fulfillment = try DemoCloud.fulfillment(
                for: bridge, token: token, agent: "demo-user", sessions: sessions, logger: logger)
        } catch {
            printError("error: the fulfillment endpoint did not start: \(error)")
            throw ExitCode.failure
        }
        defer { fulfillment.stop() }
        say("== Google's fulfillment endpoint: \(fulfillment.baseURL)/smarthome (a SYNC, as Google sends it):")
        say(
            "     curl -s -H 'Authorization: Bearer \(token)' -d "
                + #"'{"requestId":"1","inputs":[{"intent":"action.devices.SYNC"}]}' "#
                + "\(fulfillment.baseURL)/smarthome")
        say("== the web UI: \(fulfillment.baseURL)/ui/ — sign in once (within 15 minutes) with:")
        say("     \(fulfillment.baseURL)/ui/login?code=\(sessions.issueOneTimeCode())")
        say(
            "   and the HTTP API with the same token: curl -s -H 'Authorization: Bearer \(token)' "
                + "\(fulfillment.baseURL)/api/v1/devices")
        say("== traitbridge watch: changes as they happen. In another terminal, try:")
        // Everything the README's tour uses: the CLI, its broker, and the API's address and token.
        var setup = "export TRAITBRIDGE_BROKER=\(shownBroker)"
        if let folder = Self.executableFolder {
            setup = "export PATH=\"\(folder):$PATH\" TRAITBRIDGE_BROKER=\(shownBroker)"
        }
        say("     \(setup)")
        say("     export TRAITBRIDGE_API=\(fulfillment.baseURL)/api/v1 TRAITBRIDGE_TOKEN=\(token)")
        say("     traitbridge show \"Hall light\"                        # why it is partiallyOnline, trait by trait")
        say("     traitbridge scene run \"Movie night\"                  # each action's outcome; offline ones skipped")
        say("     traitbridge group show \"Downstairs lights\"           # the group's connectivity from its members")
        say("     traitbridge automation history \"Back door light\"     # why it ran, and what each action did")
        say("     traitbridge command \"Desk lamp\" matter.OnOff.toggle    # a Tasmota light: confirmed by its echo")
        if matterDevices?.light != nil {
            say("     traitbridge command \"Reading lamp\" matter.OnOff.toggle # a Matter light via the Matter Server")
        }
        say(
            "     traitbridge command \"Hall light\" matter.OnOff.toggle   "
                + "# off the Zigbee mesh: the cloud's way, confirmed")
        if partner != nil {
            say(
                "     traitbridge command \"Garden plug\" matter.OnOff.toggle --ack "
                    + "# the partner asks to confirm commands on its outlets")
        }
        if let name = cameras.first?.name {
            say(
                "     traitbridge camera record \"\(name)\" off           # recording off: no events, live view refused"
            )
            say("     traitbridge camera set \"\(name)\" nightVision=on   # a setting from cam2mqtt, confirmed")
        }
        say("   Ctrl-C stops the demo and everything it started")
        try WatchCommand.stream(
            connection: connection, devices: [], json: false, count: nil, duration: nil,
            shouldStop: { Interruption.isRequested })
        say("\n== stopping everything the demo started: simulators, bridges, brokers, the Matter Server and light")
    }

    /// The folder of the running `traitbridge` (for the PATH line the demo suggests).
    static var executableFolder: String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map {
            URL(fileURLWithPath: $0).deletingLastPathComponent().path
        }
    }

    /// Straight to standard output, unbuffered, so the simulator's lines keep their place.
    func say(_ text: String, terminator: String = "\n") {
        FileHandleWriter.write(text + terminator, to: 1)
    }
}
