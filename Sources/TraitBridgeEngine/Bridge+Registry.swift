import FoundationEssentials
import Logging
import Synchronization
import TraitBridgeAutomation
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

    /// `state` with what the registry kept put back: the layout first (the homes and rooms the
    /// rest names), then the user's placements, the devices (each placed as it comes back), the
    /// imported cloud devices and the automations. A registry that cannot be read is logged.
    static func restored(
        _ state: BridgeState, store: DeviceStore?, automationFiles: [Automation], logger: Logger
    ) -> BridgeState {
        var initial = state
        for line in initial.startLogs { line.log(to: logger) }
        if let store {
            do {
                // The layout first (the homes and rooms the rest names), then the user's placements,
                // then the devices, each placed as it comes back.
                for line in initial.restoreLayout(try store.layout()) { line.log(to: logger) }
                for line in initial.restorePlacements(try store.placements()) { line.log(to: logger) }
                let rows = try store.all()
                var logs = initial.restore(rows)
                logs += initial.restoreCloud(try store.cloudOrigins(), rows: rows, now: Date())
                for line in logs { line.log(to: logger) }
                try Self.importLegacyCloud(into: &initial, store: store, logger: logger)
                let kept = try store.automations()
                for line in initial.restoreAutomations(
                    definitions: kept.definitions, histories: kept.histories, clock: kept.clock, files: automationFiles,
                    now: Date())
                {
                    line.log(to: logger)
                }
            } catch {
                logger.error("\(error)")
            }
        } else if !automationFiles.isEmpty {
            for line in initial.restoreAutomations(
                definitions: [], histories: [:], clock: nil, files: automationFiles, now: Date())
            {
                line.log(to: logger)
            }
        }
        return initial
    }

    /// Writes last-seen times to the registry once a minute (not per message).
    func flushLastSeen(force: Bool) {
        guard let store else { return }
        let now = Date()
        let since: Date? = ticker.withLock { ticker in
            guard force || now.timeIntervalSince(ticker.lastFlush) >= 60 else { return nil }
            defer { ticker.lastFlush = now }
            return ticker.lastFlush
        }
        guard let since else { return }
        let ids = state.withLock { $0.devicesSeen(since: since) }
        do { try store.touch(ids, seen: now) } catch { logger.error("\(error)") }
    }
}
