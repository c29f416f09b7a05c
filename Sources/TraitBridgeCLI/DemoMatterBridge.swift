import Foundation
import Logging
import TraitBridgeEngine
import TraitBridgeLocalBroker
import TraitBridgeMatterDevice
import TraitBridgeMatterSecureChannel
import TraitBridgeStore

/// The demo as a Matter bridge: every demo device a bridged endpoint of a node announced by mDNS only
/// inside the Matter Server's network sandbox (Avahi there, never on the machine's own network), which
/// the demo's Matter Server commissions as a person's home app would: found by DNS-SD, attested, its
/// bridged devices read. What a user needs to commission it elsewhere is printed: the codes.
final class DemoMatterBridge {
    private let service: DemoService
    /// What the demo prints: where the bridge listens, its codes, what the Matter Server found.
    let summary: [String]

    private init(service: DemoService, summary: [String]) {
        self.service = service
        self.summary = summary
    }

    /// Starts the bridge beside `matter`'s server (`responder`: Avahi already runs in that sandbox, with
    /// its D-Bus in `DBUS_SYSTEM_BUS_ADDRESS`), has the server commission it; nil, with the reason said,
    /// when it cannot.
    static func run(
        bridge: Bridge, settings: ServeConfiguration, matter: DemoMatter, responder: Bool, work: URL, logger: Logger,
        say: (String) -> Void
    ) -> DemoMatterBridge? {
        let sandbox = matter.server.sandbox
        if !responder {
            if let reason = MDNSResponder.unavailableReason(repository: DemoMatter.repository) {
                say("== Matter bridge: not announced (\(reason))")
                return nil
            }
            let folder = work.appendingPathComponent("matter-bridge")
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let bus = try MDNSResponder.start(in: sandbox, repository: DemoMatter.repository, folder: folder)
                setenv("DBUS_SYSTEM_BUS_ADDRESS", bus, 1)
            } catch {
                say("== Matter bridge: not announced (\(error))")
                return nil
            }
        }
        var options = MatterBridgeSettings()
        options.listen = sandbox.hostAddress
        options.port = 0
        options.mdnsInterfaces = [sandbox.hostInterface]
        options.name = "TraitBridge Demo"
        let service: DemoService
        let state: MatterBridgeState
        let port: Int?
        do {
            let bridges = try ServeCommand.makeMatterBridge(
                options, configurationMappings: settings.mappingsDirectory, bridge: bridge, logger: logger)
            service = DemoService(bridges, logger: logger)
            let deadline = ContinuousClock.now + .seconds(10)
            while bridges.servers[1]?.port == nil, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            }
            port = bridges.servers[1]?.port
            guard let store = bridge.store, let record = try store.matterBridge(1) else {
                service.stop()
                say("== Matter bridge: its identity was not kept in the registry")
                return nil
            }
            state = try MatterBridgeState(record: record)
        } catch {
            say("== Matter bridge: did not start: \(error)")
            return nil
        }
        var summary = [
            "== Matter bridge: \"TraitBridge Demo\" on \(sandbox.hostAddress):\(port.map(String.init) ?? "?"), "
                + "announced by mDNS in \(sandbox.name) only",
            "     manual code \(state.setup.manualPairingCode)   QR payload \(state.setup.qrCode)",
        ]
        summary += commission(state, by: matter.server)
        return DemoMatterBridge(service: service, summary: summary)
    }

    /// The Matter Server finds the bridge by DNS-SD and commissions it: what it found, in lines.
    private static func commission(_ state: MatterBridgeState, by server: MatterServerPeer) -> [String] {
        let started = ContinuousClock.now
        // The manual code, as a person types it: the server finds the node by its discriminator over DNS-SD
        // (the software light in the same sandbox may still announce itself commissionable).
        let code = state.setup.manualPairingCode
        let command =
            #"{"message_id":"bridge","command":"commission_with_code","#
            + #""args":{"code":"\#(code)","network_only":true}}"#
        let answer: String
        do {
            answer = try server.send([command]).first ?? ""
        } catch {
            return ["   the Matter Server did not commission it: \(error)"]
        }
        guard answer.contains(#""result""#), !answer.contains("error_code") else {
            return ["   the Matter Server did not commission it: \(answer.prefix(300))"]
        }
        let took = ContinuousClock.now - started
        let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
        let result = (try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])?["result"]
        let node = (result as? [String: Any])?["node_id"].map { "\($0)" } ?? "?"
        let attributes = (result as? [String: Any])?["attributes"] as? [String: Any] ?? [:]
        // Each bridged device's NodeLabel ("<endpoint>/57/5").
        let names = attributes.filter { $0.key.hasSuffix("/57/5") }.compactMap { $0.value as? String }.sorted()
        return [
            "   the Matter Server (in the sandbox) found it by DNS-SD and commissioned it in "
                + String(format: "%.1f", seconds) + " s: node \(node), \(names.count) bridged devices "
                + "(\(names.prefix(6).joined(separator: ", "))\(names.count > 6 ? ", …" : ""))"
        ]
    }

    func stop() { service.stop() }
}
