import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeModel

/// What the bridge keeps per device beside the graph, in one record: what it last published and
/// stored, to publish and store only on change — the state and the description as hashes of their
/// bytes (a state is ~1.4 KB: kept as bytes, 10 000 devices held 14 MB to save a hash per message)
/// — when its values last changed, and the name its source last gave it (for `rename --reset`).
struct DeviceRuntime: Sendable, Hashable {
    var publishedState: Int?
    var publishedDescription: Int?
    /// The description the registry row holds: a device described again as it was (every device,
    /// when the sources speak after a restart) writes no row.
    var storedDescription: Int?
    /// Restored from the registry and not described since: the first description made of it is
    /// what its row holds (``storedDescription`` is set from it).
    var isRestoredRow = false
    var lastUpdate: Date?
    var sourceName: String?
    /// What the registry's description said each trait's source feeds and accepts, for a restored
    /// device until its own source describes it again (then `nil`).
    var restoredFeeds: [TraitAddress: TraitFeed]?

    /// A payload's hash, 16 bytes per step (``ByteHash``; `[UInt8].hashValue` feeds the hasher one
    /// byte at a time: it took a third of the hot path).
    static func hash(_ bytes: [UInt8]) -> Int { ByteHash.hash(bytes) }

    /// The broker may have lost what was published: everything is published again.
    mutating func forgetPublished() {
        publishedState = nil
        publishedDescription = nil
    }
}

/// What the bridge published and stored of each device (so it publishes and stores only on
/// change), when each device's values last changed, the name its source gave it, what a restored
/// device's registry row said it feeds — and who performs a long event's effects part-way.
///
/// The one owner of those records: the engine says what it published or stored and is told
/// whether that was news; nothing else writes them.
struct PublicationLedger: Sendable {
    private var devices: [DeviceID: DeviceRuntime] = [:]
    /// Who performs effects part-way through one event that brings many devices (a 10 000-device
    /// list, a restart's republication), so that they are not all alive at once; `nil`: every
    /// event's effects come back whole.
    var slice: EffectsSlice?
    /// What Home Assistant's discovery was given (its configs follow the descriptions), when the export is on.
    var homeAssistant = HomeAssistantLedger()
    /// Devices whose publication waits while their source describes them and gives their first values in
    /// one message (``holdDescriptions()``): made once, with the values, not first without them.
    /// `known`: those the graph held before, whose "updated device" line is said when released, if changed.
    private var waiting: (ids: Set<DeviceID>, isHolding: Bool, known: Set<DeviceID>)?

    subscript(id: DeviceID) -> DeviceRuntime? { devices[id] }

    /// Device `id`'s values changed at `now`.
    mutating func valuesChanged(_ id: DeviceID, at now: Date) {
        devices[id, default: DeviceRuntime()].lastUpdate = now
    }

    /// Device `id` has values from `now` on, unless it had some already (an import of what it said).
    mutating func valuesKnown(_ id: DeviceID, since now: Date) {
        devices[id, default: DeviceRuntime()].lastUpdate = devices[id]?.lastUpdate ?? now
    }

    /// Its source described device `id` as `name`: what it says it feeds now wins over the registry's.
    mutating func described(_ id: DeviceID, sourceName: String) {
        devices[id, default: DeviceRuntime()].sourceName = sourceName
        devices[id]?.restoredFeeds = nil
    }

    /// Device `id` was imported (a SYNC) as `name`.
    mutating func imported(_ id: DeviceID, sourceName: String) {
        devices[id, default: DeviceRuntime()].sourceName = sourceName
    }

    /// Device `id` came back from the registry with what its row said it feeds: its first
    /// description is what the row holds.
    mutating func restored(_ id: DeviceID, feeds: [TraitAddress: TraitFeed]) {
        devices[id, default: DeviceRuntime()].isRestoredRow = true
        devices[id]?.restoredFeeds = feeds.isEmpty ? nil : feeds
    }

    /// A state with this hash is to be published: `false` when it is what was published last.
    /// `known`: the record as the caller read it during this event (the message path reads it
    /// once for the last update too; a second lookup per message costs ~1 % of its instructions).
    mutating func publishState(_ id: DeviceID, hash: Int, known: DeviceRuntime?) -> Bool {
        guard known?.publishedState != hash else { return false }
        devices[id, default: DeviceRuntime()].publishedState = hash
        return true
    }

    /// A description with this hash is to be published: `false` when it is what was published
    /// last. The first one made of a restored device is what its row holds.
    mutating func publishDescription(_ id: DeviceID, hash: Int) -> Bool {
        if devices[id]?.isRestoredRow == true {
            devices[id]?.storedDescription = hash
            devices[id]?.isRestoredRow = false
        }
        guard devices[id]?.publishedDescription != hash else { return false }
        devices[id, default: DeviceRuntime()].publishedDescription = hash
        return true
    }

    /// A description with this hash is to be stored: `false` when the registry row holds it already.
    mutating func storeDescription(_ id: DeviceID, hash: Int) -> Bool {
        guard devices[id]?.storedDescription != hash else { return false }
        devices[id, default: DeviceRuntime()].storedDescription = hash
        devices[id]?.isRestoredRow = false
        return true
    }

    /// From now until ``stopHolding()``, a device's publication waits (``descriptionWaits(_:)``).
    mutating func holdDescriptions() { waiting = ([], true, []) }

    /// Publications are made again; those that waited are kept for ``releaseDescriptions()``.
    mutating func stopHolding() { waiting?.isHolding = false }

    /// Whether device `id`'s description, state and registry row are to wait (noted: they are made
    /// when released, unless made before).
    mutating func descriptionWaits(_ id: DeviceID) -> Bool {
        guard waiting?.isHolding == true else { return false }
        waiting?.ids.insert(id)
        return true
    }

    /// Whether device `id`'s publication waits now (nil fast: the message path asks it every time).
    func isWaiting(_ id: DeviceID) -> Bool { waiting?.isHolding == true && waiting?.ids.contains(id) == true }

    /// Device `id`'s description was made: it no longer waits.
    mutating func descriptionMade(_ id: DeviceID) { waiting?.ids.remove(id) }

    /// Device `id`, held, was in the graph before: its release says so if it changed.
    mutating func heldWasKnown(_ id: DeviceID) { waiting?.known.insert(id) }

    /// The devices still waiting, in order, each with whether it was known before; nothing waits after.
    mutating func releaseDescriptions() -> [(id: DeviceID, wasKnown: Bool)] {
        defer { waiting = nil }
        guard let waiting else { return [] }
        return waiting.ids.sorted().map { ($0, waiting.known.contains($0)) }
    }

    /// Device `id` went: its records go (the user's placement is kept elsewhere).
    mutating func forget(_ id: DeviceID) {
        devices.removeValue(forKey: id)
    }

    /// Device `id`'s topics were cleared: they are published again when it comes back.
    mutating func forgetPublished(_ id: DeviceID) {
        devices[id]?.forgetPublished()
    }

    /// The broker may have lost every retained topic: everything is published again.
    mutating func forgetEverythingPublished() {
        for id in devices.keys { devices[id]?.forgetPublished() }
        homeAssistant.forgetHashes()
    }
}
