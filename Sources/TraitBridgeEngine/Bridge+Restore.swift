import FoundationEssentials
import Logging
import TraitBridgeAutomation
import TraitBridgeStore

extension Bridge {
    /// Puts back what the registry holds: the layout first (the homes and rooms the rest names),
    /// then the user's placements, then the devices (each placed as it comes back), the cloud
    /// devices and the automations. A registry that cannot be read is logged; the bridge starts empty.
    static func restore(
        _ state: inout BridgeState, from store: DeviceStore?, automationFiles: [Automation], logger: Logger
    ) {
        guard let store else {
            guard !automationFiles.isEmpty else { return }
            for line in state.restoreAutomations(
                definitions: [], histories: [:], clock: nil, files: automationFiles, now: Date())
            {
                line.log(to: logger)
            }
            return
        }
        do {
            for line in state.restoreLayout(try store.layout()) { line.log(to: logger) }
            for line in state.restorePlacements(try store.placements()) { line.log(to: logger) }
            for line in state.restore(try store.all()) { line.log(to: logger) }
            for line in state.restoreCloud(try store.cloudDevices(), now: Date()) { line.log(to: logger) }
            let kept = try store.automations()
            for line in state.restoreAutomations(
                definitions: kept.definitions, histories: kept.histories, clock: kept.clock, files: automationFiles,
                now: Date())
            {
                line.log(to: logger)
            }
        } catch {
            logger.error("\(error)")
        }
    }
}
