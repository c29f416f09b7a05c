import Foundation
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources

/// The sample family's plug-in: `<prefix>/<node>/config` (`{"serial": …, "name": …}`) makes a
/// plug, an empty one removes it; `<node>/state` says `ON` or `OFF`, `<node>/avail` `online` or
/// `offline`; commands go to `<node>/set`. The id comes from the serial, so the same plug under
/// another node keeps it.
struct SamplePlugin: SourcePlugin {
    static let family = "sample"
    static let onOff = TraitAddress(deviceTypeKey: "plug", traitID: .matter("OnOff"))

    let catalog: Catalog
    let instance: String
    let prefix: String
    let locality: TraitLocality
    /// Each known plug: its node (the topic level) and what it was described as.
    private var plugs: [DeviceID: (node: String, serial: String, name: String)] = [:]
    private var nodes: [String: DeviceID] = [:]

    init(catalog: Catalog, instance: String, prefix: String, locality: TraitLocality) {
        self.catalog = catalog
        self.instance = instance
        self.prefix = prefix
        self.locality = locality
    }

    var family: String { Self.family }
    var staleness: Duration { .seconds(900) }
    var subscriptions: [String] { [prefix + "/#"] }
    var deviceIDs: [DeviceID] { plugs.keys.sorted() }
    var deviceCount: Int { plugs.count }

    func claims(_ topic: String) -> Bool { topic.hasPrefix(prefix + "/") }

    mutating func receive(_ message: SourceMessage, into events: inout [SourceEvent]) {
        let levels = message.topic.dropFirst(prefix.count + 1).split(separator: "/").map(String.init)
        guard levels.count == 2 else { return }
        let (node, kind) = (levels[0], levels[1])
        if kind == "config" { return config(node, message, into: &events) }
        guard let id = nodes[node], let plug = plugs[id] else {
            if kind == "state" || kind == "avail" { events.append(.keepUntilKnown) }
            return
        }
        let text = String(decoding: message.payload, as: UTF8.self)
        switch (kind, text) {
        case ("state", "ON"), ("state", "OFF"):
            let update = AttributeUpdate(address: Self.onOff, attribute: "onOff", value: .bool(text == "ON"))
            events.append(.values(id, [update], isNews: true))
        case ("avail", "online"), ("avail", "offline"):
            let reference = SourceReference(family: family, instance: instance, nativeID: plug.serial)
            events.append(.availability(reference, isOnline: text == "online"))
        case ("state", _), ("avail", _):
            events.append(.log(.warning, "\(message.topic): expected ON/OFF or online/offline", device: id))
        default: break
        }
    }

    private mutating func config(_ node: String, _ message: SourceMessage, into events: inout [SourceEvent]) {
        if message.payload.isEmpty {
            if let id = nodes.removeValue(forKey: node), plugs.removeValue(forKey: id) != nil {
                events.append(.unroute(topics(of: node)))
                events.append(.removed(id, reason: "its config was cleared"))
            }
            return
        }
        guard let root = try? JSONDocument.parse(message.payload).root, let serial = root["serial"]?.string,
            !serial.isEmpty
        else {
            let shape = #"{"serial": …, "name": …}"#
            return events.append(.log(.warning, "\(message.topic): expected \(shape)", device: nil))
        }
        let id = DeviceID.derived(source: family, nativeID: serial)
        let name = root["name"]?.string ?? serial
        if let known = plugs[id], known.node == node, known.name == name { return }
        guard plugs[id] != nil || plugs.count < message.deviceLimit else {
            return events.append(.refusedDevice("a new sample plug: \(plugs.count) are known already"))
        }
        if let known = plugs[id], known.node != node {  // the same plug under another node
            nodes.removeValue(forKey: known.node)
            events.append(.unroute(topics(of: known.node)))
        }
        let reference = SourceReference(family: family, instance: instance, nativeID: serial)
        do {
            let required = catalog.deviceType(.matter("OnOffPlugInUnit"))?.requiredTraits ?? []
            var plug = try catalog.makeDeviceType(
                key: "plug", type: .matter("OnOffPlugInUnit"), isPrimaryType: true,
                traits: required + [.matter("OnOff")].filter { !required.contains($0) })
            for index in plug.traits.indices { plug.traits[index].source = reference }
            let device = try Device(
                id: id, name: name, identity: DeviceIdentity(uniqueID: serial), sources: [reference],
                deviceTypes: [plug])
            plugs[id] = (node, serial, name)
            nodes[node] = id
            events.append(.described(SourceDevice(device: device, stalenessBudget: staleness)))
            events.append(.route(topics(of: node)))
            events.append(.replay(topics(of: node)))
        } catch {
            events.append(.log(.warning, "\(message.topic): \(error)", device: nil))
        }
    }

    /// A node's own topics: routed to this plug-in once its plug is known, kept until then.
    private func topics(of node: String) -> [String] {
        [prefix + "/" + node + "/state", prefix + "/" + node + "/avail"]
    }

    func commands(for writes: [AttributeUpdate], on id: DeviceID) throws(SourceCommandError) -> [SourceOutgoing] {
        guard let plug = plugs[id] else { throw .notSupported("sample plug \(id) is not known") }
        return try writes.map { write throws(SourceCommandError) in
            guard write.address == Self.onOff, write.attribute == "onOff", case .bool(let on) = write.value else {
                throw .notSupported("a sample plug only switches on and off")
            }
            return SourceOutgoing(topic: prefix + "/" + plug.node + "/set", payload: Array((on ? "ON" : "OFF").utf8))
        }
    }
}
