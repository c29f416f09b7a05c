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

/// A room or a group whose reachability is asked: the devices in it now.
public struct AvailabilitySet: Sendable, Hashable {
    /// "room" or "group".
    public var kind: String
    public var id: String
    public var name: String
    public var devices: [DeviceID]

    public init(kind: String, id: String, name: String, devices: [DeviceID]) {
        self.kind = kind
        self.id = id
        self.name = name
        self.devices = devices
    }
}

/// How reachable a room or group was: as one device whose parts are all its members' traits (none
/// reachable: the whole room away; some: partly; a drop each time it leaves "everything reachable").
public struct SetAvailability: Sendable, Hashable {
    public var set: AvailabilitySet
    public var offlineSeconds: Double
    public var partlySeconds: Double
    public var drops: Int

    public init(set: AvailabilitySet, offlineSeconds: Double, partlySeconds: Double, drops: Int) {
        self.set = set
        self.offlineSeconds = offlineSeconds
        self.partlySeconds = partlySeconds
        self.drops = drops
    }
}

/// The answer to one reachability read: each device's, and each asked room's and group's.
public struct AvailabilityReport: Sendable, Hashable {
    public var devices: [DeviceAvailability]
    public var sets: [SetAvailability]
}

extension HistoryStore {
    /// One device's trait connectivity changes in time order, its parts numbered from 0.
    private typealias Events = (series: Int, list: [(at: Int64, series: Int, online: Bool?)])

    /// Every device's reachability between `from` and `to`, from its traits' connectivity changes (and
    /// the state each held at `from`); a device counts from its first known state on, and a trait nothing
    /// was heard of yet (first seen, or since the bridge restarted) counts as neither. Each of `sets` the
    /// same over its devices' traits together.
    public func availability(
        from: Date, to: Date, sets: [AvailabilitySet] = []
    ) throws(StoreError) -> AvailabilityReport {
        let start = Self.milliseconds(from)
        let end = Self.milliseconds(to)
        let eventsOf: [DeviceID: Events]
        do {
            eventsOf = try queue.read { db in try Self.connectivityEvents(db, start: start, end: end) }
        } catch {
            throw .historyReadFailed(path: path, reason: "\(error)")
        }
        let devices = eventsOf.map { id, events in
            let walked = Self.reachability(events.list, series: events.series, end: end)
            return DeviceAvailability(
                device: id, offlineSeconds: walked.offline, partlySeconds: walked.partly, drops: walked.drops)
        }
        let groups = sets.compactMap { set -> SetAvailability? in
            var merged: [(at: Int64, series: Int, online: Bool?)] = []
            var series = 0
            for device in Set(set.devices) {
                guard let events = eventsOf[device] else { continue }
                merged += events.list.map { ($0.at, $0.series + series, $0.online) }
                series += events.series
            }
            guard !merged.isEmpty else { return nil }
            merged.sort { $0.at < $1.at }
            let walked = Self.reachability(merged, series: series, end: end)
            return SetAvailability(
                set: set, offlineSeconds: walked.offline, partlySeconds: walked.partly, drops: walked.drops)
        }
        return AvailabilityReport(devices: devices, sets: groups)
    }

    /// Per device, its traits' connectivity changes from the state each held at `start` to `end`.
    private static func connectivityEvents(_ db: Database, start: Int64, end: Int64) throws -> [DeviceID: Events] {
        var seriesOf: [String: [Int64]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, device FROM historySeries WHERE attribute = ''") {
            seriesOf[row[1], default: []].append(row[0])
        }
        var result: [DeviceID: Events] = [:]
        for (device, series) in seriesOf {
            guard let id = try? DeviceID(device) else { continue }
            var events: [(at: Int64, series: Int, online: Bool?)] = []
            for (index, one) in series.enumerated() {
                let changes = try changes(of: one, from: start, to: end, in: db)
                for entry in [changes.before].compactMap({ $0 }) + changes.inRange.map(\.entry) {
                    guard case .connectivity(let connectivity) = entry.change else { continue }
                    // Nothing heard yet (first seen, or the bridge restarted) is not known, not a drop.
                    let online = connectivity.reasonCode == "neverHeard" ? nil : connectivity.state == .online
                    events.append((max(entry.at, start), index, online))
                }
            }
            guard !events.isEmpty else { continue }
            events.sort { $0.at < $1.at }
            result[id] = (series.count, events)
        }
        return result
    }

    /// Walks traits' changes in time order: all reachable, some, none (counts kept, each change O(1):
    /// a room's hundreds of parts walk as fast as a bulb's two).
    private static func reachability(
        _ events: [(at: Int64, series: Int, online: Bool?)], series: Int, end: Int64
    ) -> (offline: Double, partly: Double, drops: Int) {
        var known = [Bool?](repeating: nil, count: series)
        var (knownCount, onlineCount) = (0, 0)
        var result = (offline: 0.0, partly: 0.0, drops: 0)
        var wasAll: Bool?  // the first known state is where the device starts, never a drop
        var index = 0
        while index < events.count {
            let at = events[index].at
            while index < events.count, events[index].at == at {
                let event = events[index]
                if let old = known[event.series] {
                    (knownCount, onlineCount) = (knownCount - 1, onlineCount - (old ? 1 : 0))
                }
                if let new = event.online { (knownCount, onlineCount) = (knownCount + 1, onlineCount + (new ? 1 : 0)) }
                known[event.series] = event.online
                index += 1
            }
            let next = index < events.count ? events[index].at : end
            let seconds = Double(max(0, next - at)) / 1000
            if knownCount == 0 { continue }  // nothing known: neither reachable nor not
            if onlineCount == knownCount {
                wasAll = true
                continue
            }
            if wasAll == true { result.drops += 1 }
            wasAll = false
            if onlineCount == 0 { result.offline += seconds } else { result.partly += seconds }
        }
        return result
    }
}
