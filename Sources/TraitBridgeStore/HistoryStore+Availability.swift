public import FoundationEssentials
import GRDB
public import TraitBridgeModel

/// How reachable one device was over a time: what the home page lists, the devices that drop
/// most first.
public struct DeviceAvailability: Sendable, Hashable {
    public var device: DeviceID
    /// Seconds with no part reachable (every trait offline or unknown).
    public var offlineSeconds: Double
    /// Seconds with a part unreachable while another was reachable (a bulb off its mesh, on its cloud).
    public var partlySeconds: Double
    /// How many times it went from every part reachable to a part (or all) not.
    public var drops: Int

    public init(device: DeviceID, offlineSeconds: Double, partlySeconds: Double, drops: Int) {
        self.device = device
        self.offlineSeconds = offlineSeconds
        self.partlySeconds = partlySeconds
        self.drops = drops
    }
}

extension HistoryStore {
    /// Every device's reachability between `from` and `to`, from its traits' connectivity changes (and
    /// the state each held at `from`); a device counts from its first known state on, and a trait nothing
    /// was heard of yet (first seen, or since the bridge restarted) counts as neither.
    public func availability(from: Date, to: Date) throws(StoreError) -> [DeviceAvailability] {
        let start = Self.milliseconds(from)
        let end = Self.milliseconds(to)
        do {
            return try queue.read { db in
                var seriesOf: [String: [Int64]] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT id, device FROM historySeries WHERE attribute = ''") {
                    seriesOf[row[1], default: []].append(row[0])
                }
                let before = try db.cachedStatement(
                    sql:
                        "SELECT at, kind, value FROM history WHERE series = ? AND at < ? "
                        + "ORDER BY at DESC, id DESC LIMIT 1"
                )
                let inRange = try db.cachedStatement(
                    sql: "SELECT at, kind, value FROM history WHERE series = ? AND at >= ? AND at <= ? ORDER BY at, id")
                var result: [DeviceAvailability] = []
                for (device, series) in seriesOf {
                    guard let id = try? DeviceID(device) else { continue }
                    var events: [(at: Int64, series: Int, online: Bool?)] = []
                    for (index, one) in series.enumerated() {
                        var rows = try Row.fetchAll(before, arguments: [one, start])
                        rows += try Row.fetchAll(inRange, arguments: [one, start, end])
                        for row in rows {
                            guard
                                case .connectivity(let connectivity) = HistoryValueCoding.decode(
                                    kind: row[1], value: row[2])
                            else { continue }
                            // Nothing heard yet (first seen, or the bridge restarted) is not known, not a drop.
                            let online = connectivity.reasonCode == "neverHeard" ? nil : connectivity.state == .online
                            events.append((max(row[0], start), index, online))
                        }
                    }
                    guard !events.isEmpty else { continue }
                    events.sort { $0.at < $1.at }
                    result.append(Self.reachability(id, events, series: series.count, end: end))
                }
                return result
            }
        } catch {
            throw .readFailed("\(path): \(error)")
        }
    }

    /// Walks one device's trait changes in time order: all reachable, some, none.
    static func reachability(
        _ id: DeviceID, _ events: [(at: Int64, series: Int, online: Bool?)], series: Int, end: Int64
    ) -> DeviceAvailability {
        var known = [Bool?](repeating: nil, count: series)
        var result = DeviceAvailability(device: id, offlineSeconds: 0, partlySeconds: 0, drops: 0)
        var wasAll: Bool?  // the first known state is where the device starts, never a drop
        var index = 0
        while index < events.count {
            let at = events[index].at
            while index < events.count, events[index].at == at {
                known[events[index].series] = events[index].online
                index += 1
            }
            let states = known.compactMap { $0 }
            let online = states.filter { $0 }.count
            let next = index < events.count ? events[index].at : end
            let seconds = Double(max(0, next - at)) / 1000
            if states.isEmpty { continue }  // nothing known: neither reachable nor not
            if online == states.count {
                wasAll = true
                continue
            }
            if wasAll == true { result.drops += 1 }
            wasAll = false
            if online == 0 { result.offlineSeconds += seconds } else { result.partlySeconds += seconds }
        }
        return result
    }
}
