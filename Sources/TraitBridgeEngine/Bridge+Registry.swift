import FoundationEssentials
import Logging
import TraitBridgeStore

extension Bridge {
    /// A registry before v8 kept imported cloud devices as SYNC entries: imported once more, kept
    /// as typed records, and the entries dropped, in one transaction. A bridge without the
    /// Cloud-to-cloud table cannot read them: they stay for a start that has it.
    static func importLegacyCloud(
        into state: inout BridgeState, store: DeviceStore, logger: Logger
    ) throws(StoreError) {
        let entries = try store.legacyCloudEntries()
        guard !entries.isEmpty else { return }
        guard state.cloud != nil else {
            logger.warning(
                """
                the registry keeps \(entries.count) SYNC entries from an older version; start with --mappings \
                pointing at a folder with cloud/google-c2c.json to bring those cloud devices back
                """)
            return
        }
        let effects = state.importLegacyCloud(entries, now: Date())
        for line in effects.logs { line.log(to: logger) }
        var batch = DeviceStore.Batch()
        for case .saveCloudDevice(let origin, let device) in effects.storeChanges {
            batch.cloudDevices.append((origin, device))
        }
        batch.dropsLegacyCloudEntries = true
        try store.commit(batch, at: Date())
        logger.notice("the registry's \(entries.count) SYNC entries are kept as typed records now")
    }
}
