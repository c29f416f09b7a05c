import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel
public import TraitBridgeStore

extension BridgeState {
    /// Puts the devices of the registry back, from their records, with connectivity unknown
    /// ("nothing heard yet") until their sources speak. A record that no longer fits the catalog is
    /// skipped with a log line; the others are restored.
    public mutating func restore(_ rows: [DeviceStore.Row]) -> [BridgeLogLine] {
        var logs: [BridgeLogLine] = []
        var attributeTexts = RestoredAttributes()
        // Cloud devices come back with their origins (restoreCloud), not from here.
        for row in rows where graph.devices[row.id] == nil && !CloudImport.feeds(row.record.sources.first) {
            for problem in row.problems {
                logs.append(BridgeLogLine(.warning, "registry: \(problem)", ["tb.device.id": row.id.rawValue]))
            }
            do {
                let (device, feeds) = try makeDevice(row.record, attributeTexts: &attributeTexts, logs: &logs)
                try graph.addDevice(device)
                // Its description, made at the first publication, is what the row holds.
                published.restored(row.id, feeds: feeds)
                if layout.placement(of: row.id) != nil {
                    var effects = BridgeEffects()
                    applyPlacement(row.id, effects: &effects)
                    logs += effects.logs
                } else if let roomName = row.record.roomName {
                    let home = graph.primaryHome.id
                    let room = try graph.room(named: roomName, addingTo: home)
                    try graph.assignDevice(row.id, to: room)
                }
            } catch {
                logs.append(
                    BridgeLogLine(
                        .warning, "could not restore device from the registry: \(error)",
                        ["tb.device.id": row.id.rawValue]))
            }
        }
        logs.append(BridgeLogLine(.info, "restored \(graph.devices.count) devices from the registry"))
        return logs
    }

    /// A device from its record. `isCloud`: an imported cloud device (its own record, all of it
    /// the cloud's), not a local device that cloud types were joined to.
    func makeDevice(
        _ record: DeviceRecord, attributeTexts: inout RestoredAttributes, logs: inout [BridgeLogLine],
        isCloud: Bool = false
    ) throws -> (
        Device, [TraitAddress: TraitFeed]
    ) {
        var types: [DeviceTypeInstance] = []
        for type in record.types {
            // Types a cloud device contributed to a merged device are re-attached by restoreCloud.
            let traitSources = type.traits.compactMap(\.source)
            if !isCloud && !traitSources.isEmpty && traitSources.allSatisfy(CloudImport.feeds) {
                continue
            }
            // A vendor definition a source discovered comes back when the source describes the
            // device again; until then the device is restored without it.
            if type.type.namespace.isVendor, catalog.deviceType(type.type) == nil { continue }
            let traits = type.traits.map(\.id).filter { !$0.namespace.isVendor || catalog.trait($0) != nil }
            do {
                types.append(
                    try catalog.makeDeviceType(
                        key: type.key, type: type.type, isPrimaryType: type.isPrimaryType, traits: traits))
            } catch {
                // One type that no longer fits the catalog does not keep the device's others away.
                logs.append(
                    BridgeLogLine(
                        .warning,
                        "registry: device type '\(type.key)' left out (\(error)); its source describes it again",
                        ["tb.device.id": record.id.rawValue]))
            }
        }
        // Everything the record holds comes back, so that a source describing the device again as
        // it was changes nothing (no new description, no registry write).
        var device = try Device(
            id: record.id, name: record.name, identity: record.identity, info: record.info,
            isMatterDevice: record.isMatterDevice,
            sources: isCloud ? record.sources : record.sources.filter { !CloudImport.feeds($0) },
            deviceTypes: types)
        var feeds: [TraitAddress: TraitFeed] = [:]
        for type in record.types where device.deviceType(key: type.key) != nil {
            for trait in type.traits {
                let address = TraitAddress(deviceTypeKey: type.key, traitID: trait.id)
                guard device.trait(at: address) != nil else { continue }  // a vendor trait not known now
                try device.modifyTrait(at: address) { $0.source = trait.source ?? record.sources.first }
                let feed = TraitFeed(attributes: attributeTexts.read(trait.attributes), commands: trait.commands)
                if !feed.attributes.isEmpty || !feed.commands.isEmpty { feeds[address] = feed }
            }
        }
        return (device, feeds)
    }
}

/// What a trait's source feeds (attributes with their metadata) and accepts (commands): made for
/// a description and reused for the registry's record; for a restored device, what the record
/// said, until its source describes it again.
struct TraitFeed: Sendable, Hashable {
    var attributes: [(name: String, metadata: AttributeMetadata)]
    var commands: [String]

    static func == (lhs: TraitFeed, rhs: TraitFeed) -> Bool {
        lhs.commands == rhs.commands && lhs.attributes.elementsEqual(rhs.attributes) { $0 == $1 }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(commands)
        for (name, metadata) in attributes {
            hasher.combine(name)
            hasher.combine(metadata)
        }
    }
}

/// Attribute lists read back by one restore: a few dozen distinct texts over thousands of traits,
/// each read once (at most 4 096 kept; more are read each time) and the lists shared.
struct RestoredAttributes {
    private var known: [String: [(name: String, metadata: AttributeMetadata)]] = [:]
    private static let limit = 4096

    /// A trait's `attributes` as the record keeps them (the description's JSON object); a text that
    /// does not read gives no attributes (the source says them again).
    mutating func read(_ text: String) -> [(name: String, metadata: AttributeMetadata)] {
        if let list = known[text] { return list }
        let root = (try? JSONDocument.parse(Array(text.utf8), maxDepth: 16))?.root
        let list = (root?.members ?? []).compactMap { name, metadata in
            DevicePayloads.readMetadata(metadata).map { (name, $0) }
        }
        if known.count < Self.limit { known[text] = list }
        return list
    }
}
