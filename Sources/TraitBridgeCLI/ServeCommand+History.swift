import Foundation
import Logging
import TraitBridgeEngine
import TraitBridgeModel
import TraitBridgeStore

extension ServeCommand {
    /// Opens `<data dir>/history.sqlite` and its writer. The history is safe to lose: a damaged file
    /// is moved aside (`history.sqlite.broken`) and a new one started; one that cannot be opened at
    /// all leaves the bridge running without history, saying why.
    static func openHistory(_ directory: String, _ settings: HistorySettings, logger: Logger) -> HistoryRecorder? {
        let bounds = HistoryRecorder.Bounds(
            maxAge: .seconds(FiniteNumber.int64(clamping: settings.maxAgeDays * 86_400) ?? 864_000),
            maxBytes: settings.maxBytes)
        if let count = HistoryStore.changesToConvert(directory: directory) {
            let message =
                "history: converting about \(count) changes of \(directory)/history.sqlite to blocks, once "
                + "(written by an earlier TraitBridge; some 8 s a million changes)"
            logger.notice("\(message)")
        }
        do {
            return HistoryRecorder(store: try HistoryStore(directory: directory), bounds: bounds, logger: logger)
        } catch {
            guard case .damaged(let path, _) = error else {
                logger.error("no history is kept: \(error)")
                return nil
            }
            let aside = path + ".broken"
            try? FileManager.default.removeItem(atPath: aside)
            do {
                try FileManager.default.moveItem(atPath: path, toPath: aside)
                for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                let recorder = HistoryRecorder(
                    store: try HistoryStore(directory: directory), bounds: bounds, logger: logger)
                logger.warning("history: \(path) was damaged (\(error)); moved to \(aside), a new history begins")
                return recorder
            } catch {
                logger.error("no history is kept: \(path) is damaged and could not be replaced: \(error)")
                return nil
            }
        }
    }
}
