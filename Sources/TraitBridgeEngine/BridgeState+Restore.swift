import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel
public import TraitBridgeStore

extension BridgeState {
    /// Puts the devices of the registry back, from their stored descriptions, with connectivity
    /// unknown ("nothing heard yet") until their sources speak. A row that no longer fits the
    /// catalog is skipped with a log line; the others are restored.
    public mutating func restore(_ rows: [DeviceStore.Row]) -> [BridgeLogLine] {
        var logs: [BridgeLogLine] = []
        var identifiers = RestoredIdentifiers()
        // Cloud devices come back from their kept SYNC entries (restoreCloud), not from here.
        for row in rows.map(\.record) where graph.devices[row.id] == nil && row.sourceFamily != GoogleC2C.family {
            do {
                var (device, feeds) = try decodeDevice(row, identifiers: &identifiers)
                device.name = row.name
                try graph.addDevice(device)
                runtime[row.id, default: DeviceRuntime()].storedDescription = DeviceRuntime.hash(row.description)
                runtime[row.id]?.restoredFeeds = feeds.isEmpty ? nil : feeds
                if placements[row.id] != nil {
                    var effects = BridgeEffects()
                    applyPlacement(row.id, effects: &effects)
                    logs += effects.logs
                } else if let roomName = row.roomName {
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

    /// What a restore reads of a stored description: not the ids and names for people (`homeApisId`,
    /// home, room), which come from the catalog and the layout. Built on each use, not kept in a
    /// global: LeakSanitizer reports a global indirect enum's box as leaked (see Zigbee2MQTTSource).
    static var restoredProjection: JSONProjection {
        .members([
            "identity": .all, "deviceInfo": .all, "isMatterDevice": .all, "sources": .all,
            "types": .eachMember(
                .members([
                    "type": .all, "isPrimaryType": .all,
                    "traits": .eachMember(
                        .members(["source": .all, "attributes": .text(.all), "commands": .text(.all)])),
                ])),
        ])
    }

    private func decodeDevice(_ row: DeviceRecord, identifiers: inout RestoredIdentifiers) throws -> (
        Device, [TraitAddress: RestoredFeed]
    ) {
        let root = try JSONDocument.parse(row.description, maxDepth: 128, projection: Self.restoredProjection).root
        var types: [DeviceTypeInstance] = []
        for (key, type) in root["types"]?.members ?? [] {
            // Types a cloud device contributed to a merged device are re-attached by restoreCloud.
            let traitSources = (type["traits"]?.members ?? []).compactMap { $0.value["source"]?.string }
            if !traitSources.isEmpty && traitSources.allSatisfy({ $0.hasPrefix(GoogleC2C.family + "[") }) { continue }
            guard let typeText = type["type"]?.string, let typeID = identifiers.deviceType(typeText) else {
                throw ModelError.unknownDeviceTypeKey(key: key, known: [])
            }
            // A vendor definition a source discovered comes back when the source describes the
            // device again; until then the device is restored without it.
            if typeID.namespace.isVendor, catalog.deviceType(typeID) == nil { continue }
            let traits = (type["traits"]?.members ?? []).compactMap { identifiers.trait($0.key) }
                .filter { !$0.namespace.isVendor || catalog.trait($0) != nil }
            types.append(
                try catalog.makeDeviceType(
                    key: key, type: typeID, isPrimaryType: type["isPrimaryType"]?.bool ?? false, traits: traits))
        }
        let identity = root["identity"]
        let info = root["deviceInfo"]
        let rowSource = SourceReference(family: row.sourceFamily, instance: row.sourceInstance, nativeID: row.nativeID)
        // Everything the description holds comes back, so that a source describing the device
        // again as it was changes nothing (no new description, no registry write).
        let sources = (root["sources"]?.elements ?? []).compactMap { $0.string.flatMap { identifiers.source($0) } }
        var device = try Device(
            id: row.id, name: row.name,
            identity: DeviceIdentity(
                vendorID: identity?["vendorId"]?.int64.flatMap { UInt16(exactly: $0) },
                productID: identity?["productId"]?.int64.flatMap { UInt16(exactly: $0) },
                uniqueID: identity?["uniqueId"]?.string,
                serialNumber: identity?["serialNumber"]?.string,
                otherDeviceIDs: (identity?["otherDeviceIds"]?.elements ?? []).compactMap { other in
                    other["deviceId"]?.string.map { OtherDeviceID(agentID: other["agentId"]?.string, deviceID: $0) }
                }),
            info: DeviceInfo(
                manufacturer: info?["manufacturer"]?.string,
                model: info?["model"]?.string,
                hardwareVersion: info?["hwVersion"]?.string,
                softwareVersion: info?["swVersion"]?.string),
            isMatterDevice: root["isMatterDevice"]?.bool ?? false,
            sources: sources.isEmpty ? [rowSource] : sources.filter { $0.family != GoogleC2C.family },
            deviceTypes: types)
        var feeds: [TraitAddress: RestoredFeed] = [:]
        for (key, type) in root["types"]?.members ?? [] {
            for (traitText, trait) in type["traits"]?.members ?? [] {
                guard let traitID = identifiers.trait(traitText), device.deviceType(key: key) != nil else { continue }
                let address = TraitAddress(deviceTypeKey: key, traitID: traitID)
                let source = trait["source"]?.string.flatMap { identifiers.source($0) } ?? rowSource
                try? device.modifyTrait(at: address) { $0.source = source }
                let feed = RestoredFeed(
                    attributes: trait["attributes"].map { identifiers.attributes($0) } ?? [],
                    commands: trait["commands"].map { identifiers.commands($0) } ?? [])
                if !feed.attributes.isEmpty || !feed.commands.isEmpty { feeds[address] = feed }
            }
        }
        return (device, feeds)
    }
}

/// What a restored trait's source fed and accepted, as the registry's description said: the
/// device is described as before the restart until its source describes it again.
struct RestoredFeed: Sendable, Hashable {
    var attributes: [(name: String, metadata: AttributeMetadata)]
    var commands: [String]

    static func == (lhs: RestoredFeed, rhs: RestoredFeed) -> Bool {
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

/// Trait and device type ids, attribute metadata and command lists read back by one restore: a
/// few hundred distinct texts over thousands of rows, each read once (and the lists shared).
private struct RestoredIdentifiers {
    private var traits: [String: TraitID?] = [:]
    private var deviceTypes: [String: DeviceTypeID?] = [:]
    private var attributeTexts: [String: [(name: String, metadata: AttributeMetadata)]] = [:]
    private var commandTexts: [String: [String]] = [:]
    private static let textLimit = 4096
    /// The last source reference read: a device's traits name the same one, one after another.
    private var lastSource: (text: String, parsed: SourceReference?)?

    mutating func trait(_ text: String) -> TraitID? {
        if let known = traits[text] { return known }
        let parsed = TraitID(parsing: text)
        if traits.count < Self.textLimit { traits[text] = parsed }
        return parsed
    }

    mutating func deviceType(_ text: String) -> DeviceTypeID? {
        if let known = deviceTypes[text] { return known }
        let parsed = DeviceTypeID(parsing: text)
        if deviceTypes.count < Self.textLimit { deviceTypes[text] = parsed }
        return parsed
    }

    /// A trait's `attributes`, kept as text by the projection (or, when its key was written with
    /// escapes, as the object itself).
    mutating func attributes(_ member: JSON) -> [(name: String, metadata: AttributeMetadata)] {
        guard let text = member.string else { return Self.readAttributes(member) }
        if let known = attributeTexts[text] { return known }
        let read = (try? JSONDocument.parse(Array(text.utf8), maxDepth: 16)).map { Self.readAttributes($0.root) } ?? []
        if attributeTexts.count < Self.textLimit { attributeTexts[text] = read }
        return read
    }

    private static func readAttributes(_ object: JSON) -> [(name: String, metadata: AttributeMetadata)] {
        object.members.compactMap { name, metadata in DevicePayloads.readMetadata(metadata).map { (name, $0) } }
    }

    /// A trait's `commands`, as ``attributes(_:)``.
    mutating func commands(_ member: JSON) -> [String] {
        guard let text = member.string else { return member.elements.compactMap(\.string) }
        if let known = commandTexts[text] { return known }
        let read = (try? JSONDocument.parse(Array(text.utf8), maxDepth: 16))?.root.elements.compactMap(\.string) ?? []
        if commandTexts.count < Self.textLimit { commandTexts[text] = read }
        return read
    }

    mutating func source(_ text: String) -> SourceReference? {
        if let lastSource, lastSource.text == text { return lastSource.parsed }
        let parsed = SourceReference(parsing: text)
        lastSource = (text, parsed)
        return parsed
    }
}
