import FoundationEssentials
import TraitBridgeModel
import TraitBridgeSources

/// A device a plug-in described, as it described it (no values), and where its traits are.
struct SourceMember: Sendable {
    var plugin: Int
    var described: SourceDevice
    /// The graph device its traits are on: its own id (a device of its own, or one standing
    /// alone), another source's device it joined, or nil (waiting for its `mergeWith` target).
    var target: DeviceID?
    /// Its device type keys → their keys on the device it joined (renamed where taken).
    var keyMap: [String: String] = [:]

    var id: DeviceID { described.device.id }
    var references: [SourceReference] { described.device.sources }
}

/// What the bridge knows of one source reference (a device, a Home Assistant entity, a generic
/// mapping): the plug-in that feeds it, the member it belongs to (nil before its device is
/// described), the locality of its traits and what it said of itself.
struct ReferenceRuntime: Sendable {
    var plugin: Int
    var owner: DeviceID?
    var locality: TraitLocality
    var liveness: DeviceLiveness
}

/// Who is who among the sources' devices: each member a plug-in described and the device its
/// traits are on, the members joined to each device, those waiting for their `mergeWith`
/// target, the topics kept for members not placed yet, the devices that just moved in (for
/// their values), and each source reference with its liveness — one lookup per message.
///
/// The one owner of those maps: a member's target, the joined sets and the waiting sets change
/// together here, so they cannot disagree. Where a member goes is the engine's to decide (it
/// needs the graph); this type only keeps the answer.
struct MemberDirectory: Sendable {
    private var members: [DeviceID: SourceMember] = [:]
    private var joined: [DeviceID: Set<DeviceID>] = [:]
    private var waitingFor: [DeviceID: Set<DeviceID>] = [:]
    private var waitingTopics: [DeviceID: Set<String>] = [:]
    private var carried: [DeviceID: [Device]] = [:]
    private var references: [SourceReference: ReferenceRuntime] = [:]

    // MARK: Members

    subscript(id: DeviceID) -> SourceMember? { members[id] }

    /// The device a member's traits are on (`nil`: unknown member, or waiting for its target).
    func target(of id: DeviceID) -> DeviceID? { members[id]?.target }

    /// The members joined to device `id`, sorted.
    func joined(to id: DeviceID) -> [DeviceID] { (joined[id] ?? []).sorted() }

    /// The members waiting for device `id` to appear (their `mergeWith` target), sorted.
    func waiting(for id: DeviceID) -> [DeviceID] { (waitingFor[id] ?? []).sorted() }

    /// A member as its plug-in just described it: where it was stays until the engine places it
    /// again; references it no longer has are forgotten, its new ones start with `locality`.
    mutating func record(_ described: SourceDevice, plugin: Int, locality: TraitLocality) {
        let id = described.device.id
        let old = members[id]
        let current = Set(described.device.sources)
        for reference in old?.references ?? [] where references[reference]?.owner == id && !current.contains(reference)
        {
            references.removeValue(forKey: reference)  // an entity it no longer has
        }
        members[id] = SourceMember(
            plugin: plugin, described: described, target: old?.target, keyMap: old?.keyMap ?? [:])
        for reference in described.device.sources {
            var known =
                references[reference]
                ?? ReferenceRuntime(
                    plugin: plugin, owner: id, locality: locality,
                    liveness: DeviceLiveness(stalenessBudget: described.stalenessBudget))
            known.plugin = plugin
            known.owner = id
            known.locality = locality
            references[reference] = known
        }
    }

    /// Points a member at the device its traits are on (`nil`: it waits), keeping the joined and
    /// waiting sets in step; a new target forgets the keys it had on the old one.
    mutating func setTarget(_ id: DeviceID, _ target: DeviceID?) {
        guard var member = members[id] else { return }
        if let old = member.target, old != id, old != target {
            joined[old]?.remove(id)
            if joined[old]?.isEmpty == true { joined.removeValue(forKey: old) }
        }
        if case .device(let wanted) = member.described.joining {
            if target == nil { waitingFor[wanted, default: []].insert(id) } else { waitingFor[wanted]?.remove(id) }
        }
        if target != member.target { member.keyMap = [:] }
        member.target = target
        members[id] = member
        if let target, target != id { joined[target, default: []].insert(id) }
    }

    /// The keys a joined member's device types have on its target.
    mutating func setKeyMap(_ id: DeviceID, _ keyMap: [String: String]) {
        members[id]?.keyMap = keyMap
    }

    /// A member is gone from its source: it, its waiting topics and its references are forgotten.
    /// Returns it as it was, or `nil` when it was not known.
    mutating func remove(_ id: DeviceID) -> SourceMember? {
        guard let member = members[id] else { return nil }
        setTarget(id, nil)
        members.removeValue(forKey: id)
        if case .device(let wanted) = member.described.joining { waitingFor[wanted]?.remove(id) }
        waitingTopics.removeValue(forKey: id)
        for reference in member.references where references[reference]?.owner == id {
            references.removeValue(forKey: reference)
        }
        return member
    }

    /// Device `id` went: the members joined to it are on no device now (the engine places each
    /// again). Returns them, sorted.
    mutating func release(joinedTo id: DeviceID) -> [DeviceID] {
        let others = (joined.removeValue(forKey: id) ?? []).sorted()
        for other in others {
            members[other]?.target = nil
            members[other]?.keyMap = [:]
        }
        return others
    }

    // MARK: Waiting messages and carried values

    /// A message for a member whose device is not there yet: its topic is kept for it.
    mutating func keepWaiting(_ topic: String, for id: DeviceID) {
        waitingTopics[id, default: []].insert(topic)
    }

    /// The topics kept for a member, taken (once it has a device).
    mutating func takeWaitingTopics(of id: DeviceID) -> Set<String>? {
        waitingTopics.removeValue(forKey: id)
    }

    /// A device standing alone joins `target`: kept until `target` is composed, for its values.
    mutating func carry(_ standalone: Device, into target: DeviceID) {
        carried[target, default: []].append(standalone)
    }

    /// The devices that moved into `target` since it was last composed, taken.
    mutating func takeCarried(into target: DeviceID) -> [Device] {
        carried.removeValue(forKey: target) ?? []
    }

    // MARK: References

    subscript(reference: SourceReference) -> ReferenceRuntime? { references[reference] }

    /// The device a reference's traits are on (through the member that owns it).
    func target(of reference: SourceReference) -> DeviceID? {
        references[reference]?.owner.flatMap { members[$0]?.target }
    }

    /// Every reference, for the periodic staleness check and the registry's last-seen times.
    var allReferences: Dictionary<SourceReference, ReferenceRuntime>.Values { references.values }

    /// A message of `reference`'s carried data at `now`.
    mutating func heard(_ reference: SourceReference, topic: String, now: Date) {
        guard let index = references.index(forKey: reference) else { return }  // one hash of the reference
        references.values[index].liveness.lastSeen = now
        references.values[index].liveness.lastTopic = topic
    }

    /// What a reference's own availability word said. A reference not described yet (a Shelly's
    /// `online` first) is kept with `plugin`'s locality and budget. `false` when it said nothing new.
    mutating func setAvailability(
        _ reference: SourceReference, _ availability: LinkState, plugin: Int, locality: TraitLocality,
        staleness: Duration
    ) -> Bool {
        guard references[reference]?.liveness.availability.status != availability.status else { return false }
        if references[reference] == nil {
            references[reference] = ReferenceRuntime(
                plugin: plugin, owner: nil, locality: locality, liveness: DeviceLiveness(stalenessBudget: staleness))
        }
        references[reference]?.liveness.availability = availability
        return true
    }
}
