public import FoundationEssentials
public import TraitBridgeModel

extension DeviceStore {
    /// What one event (or the events of one network read) changes in the registry, written by
    /// ``commit(_:at:)`` in one transaction.
    public struct Batch: Sendable {
        public var upserts: [DeviceRecord] = []
        public var removals: [DeviceID] = []
        /// Imported cloud devices: their origins and devices (replacing those with the same C2C id).
        public var cloudDevices: [(origin: CloudOriginRecord, device: DeviceRecord)] = []
        /// The SYNC entries of a registry before v8 are gone: the bridge keeps them typed now.
        public var dropsLegacyCloudEntries = false
        /// What the user decided about devices (an empty placement deletes the row).
        public var placements: [(id: DeviceID, placement: UserPlacement)] = []
        /// The home layout (homes, rooms, zones, groups, scenes) as one document, when it changed.
        public var layout: [UInt8]?
        /// Automation definitions by id (`nil`: removed, with its history), their histories, and
        /// the time the bridge was last running.
        public var automations: [(id: String, definition: [UInt8]?)] = []
        public var histories: [(id: String, history: [UInt8])] = []
        public var clock: Date?

        public init() {}

        /// Adds a device row; with ``remove(_:)``, the batch ends as if each call were applied in
        /// turn (a commit deletes before it upserts).
        public mutating func upsert(_ record: DeviceRecord) { upserts.append(record) }

        /// Removes a device row, and any upsert of it made earlier in this batch.
        public mutating func remove(_ id: DeviceID) {
            upserts.removeAll { $0.id == id }
            removals.append(id)
        }

        var isEmpty: Bool {
            upserts.isEmpty && removals.isEmpty && cloudDevices.isEmpty && !dropsLegacyCloudEntries
                && placements.isEmpty && layout == nil
                && automations.isEmpty && histories.isEmpty && clock == nil
        }
    }
}
