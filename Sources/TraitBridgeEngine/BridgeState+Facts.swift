import FoundationEssentials
import TraitBridgeModel
import TraitBridgeSources

/// What the bridge can say of itself at any moment, for `/metrics` and `/readyz`: counts the
/// state already keeps (refusals, messages per plug-in, devices), read from a snapshot, so the
/// hot path records nothing for them.
public struct BridgeFacts: Sendable {
    /// Messages each plug-in was handed since start, by `family` or `family/instance`.
    public var messagesBySource: [String: Int] = [:]
    /// Devices each plug-in holds, by the same names.
    public var devicesBySource: [String: Int] = [:]
    /// Devices of the home graph by their aggregate connectivity (`online`, `partiallyOnline`…).
    public var devicesByConnectivity: [String: Int] = [:]
    /// What each bound refused since start, by limit name.
    public var refusals: [String: Int] = [:]
    /// The broker link, and each plug-in's source bridge (zigbee2mqtt's bridge, a Matter Server)
    /// where it has one: `up`, `down` or `unknown`.
    public var broker: LinkState.Status = .unknown
    public var sourceBridges: [String: LinkState.Status] = [:]
    /// Commands waiting for their device's answer.
    public var waitingCommands = 0
}

extension BridgeState {
    /// The facts of ``BridgeFacts`` now (a scan of the devices: once per scrape, not per message).
    public var facts: BridgeFacts { facts(countingDevices: true) }

    /// The facts without ``BridgeFacts/devicesByConnectivity`` (no scan of the devices): what a
    /// readiness probe or the systemd notifier asks, often.
    public func facts(countingDevices: Bool) -> BridgeFacts {
        var facts = BridgeFacts()
        for index in sources.indices {
            let plugin = sources[index]
            let name = plugin.instance == "default" ? plugin.family : "\(plugin.family)/\(plugin.instance)"
            facts.messagesBySource[name, default: 0] += sources.receivedCount(index)
            facts.devicesBySource[name, default: 0] += plugin.deviceCount
            let link = sources.sourceLink(index)
            if link.status != .unknown || link.since != nil { facts.sourceBridges[name] = link.status }
        }
        if countingDevices {
            for state in ConnectivityState.allCases { facts.devicesByConnectivity[state.rawValue] = 0 }
            for device in graph.devices.values {
                facts.devicesByConnectivity[device.sourceConnectivity.connectivityState.rawValue, default: 0] += 1
            }
        }
        for kind in LimitKind.allCases { facts.refusals[kind.rawValue] = sources.refusalCount(kind) }
        facts.broker = sources.broker.status
        facts.waitingCommands = commands.waitingCount
        return facts
    }
}
