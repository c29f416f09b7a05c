public import FoundationEssentials
import GRDB

/// A bridged device's Matter identity as the registry keeps it: the bridge that serves it, its endpoint
/// number there and the UniqueID its Bridged Device Basic Information serves. Controllers key rooms and
/// automations by both, so an assignment never changes and is never given to another key; only
/// `matter reset` of its bridge forgets them. Numbers are per bridge; a UniqueID is unique over all bridges.
public struct MatterEndpointAssignment: Sendable, Hashable {
    /// The Matter bridge (``DeviceStore/matterBridgeRange``) whose endpoint this is.
    public var bridge: Int
    /// A device id, or `<device id>/<device type key>` for a part of a composed device.
    public var key: String
    /// 2…65534 (``DeviceStore/matterEndpointRange``): 0 is the root node, 1 the aggregator.
    public var endpoint: UInt16
    /// 16 random bytes as 32 lowercase hex digits.
    public var uniqueID: String

    /// An assignment on bridge `bridge` (1, the first bridge, when not said).
    public init(key: String, endpoint: UInt16, uniqueID: String, bridge: Int = 1) {
        self.key = key
        self.endpoint = endpoint
        self.uniqueID = uniqueID
        self.bridge = bridge
    }
}

extension DeviceStore {
    /// The endpoint numbers a bridged device may have: 0 is the root node, 1 the aggregator, 65535 is
    /// reserved (the spec's invalid endpoint).
    public static let matterEndpointRange: ClosedRange<UInt16> = 2...65534

    /// Every endpoint assignment kept, of every bridge, by bridge and then endpoint number: those of devices
    /// gone too (their numbers are never given again). A row that is not one (a bridge out of
    /// ``matterBridgeRange``, a number out of ``matterEndpointRange``, a UniqueID that is not 32 lowercase hex
    /// digits: a damaged or edited registry) is an error that names its key.
    public func matterEndpoints() throws(StoreError) -> [MatterEndpointAssignment] {
        do {
            return try queue.read { db in
                try GRDB.Row.fetchAll(
                    db, sql: "SELECT bridge, key, endpoint, uniqueID FROM matterEndpoint ORDER BY bridge, endpoint"
                ).map(Self.matterEndpoint)
            }
        } catch {
            throw .readFailed("the Matter bridges' endpoints: \(error)")
        }
    }

    /// The endpoint assignments kept on bridge `bridge` (``matterBridgeRange``), by endpoint number, as
    /// ``matterEndpoints()`` reads them: what ``assignMatterEndpoints(for:existing:bridge:using:)`` takes.
    public func matterEndpoints(bridge: Int) throws(StoreError) -> [MatterEndpointAssignment] {
        guard Self.matterBridgeRange.contains(bridge) else { throw .readFailed(Self.notAMatterBridge(bridge)) }
        do {
            return try queue.read { db in
                try GRDB.Row.fetchAll(
                    db,
                    sql:
                        "SELECT bridge, key, endpoint, uniqueID FROM matterEndpoint WHERE bridge = ? ORDER BY endpoint",
                    arguments: [bridge]
                ).map(Self.matterEndpoint)
            }
        } catch {
            throw .readFailed("Matter bridge \(bridge)'s endpoints: \(error)")
        }
    }

    /// Keeps new assignments, each on its bridge, all in one transaction: none is written when one is refused.
    /// A key or endpoint number already kept on the same bridge, or a UniqueID kept on any bridge (or given
    /// twice in `new`), is refused and named, never overwritten; so is a bridge out of ``matterBridgeRange``,
    /// an endpoint out of ``matterEndpointRange`` or a UniqueID that is not 32 lowercase hex digits.
    public func saveMatterEndpoints(_ new: [MatterEndpointAssignment], now: Date) throws(StoreError) {
        guard !new.isEmpty else { return }
        do {
            try queue.write { db in
                for assignment in new {
                    try Self.checkNewMatterEndpoint(assignment, db)
                    try db.execute(
                        sql: """
                            INSERT INTO matterEndpoint (bridge, key, endpoint, uniqueID, assignedAt)
                            VALUES (?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            assignment.bridge, assignment.key, Int64(assignment.endpoint), assignment.uniqueID,
                            now.timeIntervalSince1970,
                        ])
                }
            }
        } catch {
            throw .writeFailed("the Matter bridges' endpoints: \(error)")
        }
    }

    /// Assigns endpoints of bridge `bridge` to `keys`, a pure function of its arguments (the caller saves
    /// `new` with ``saveMatterEndpoints(_:now:)``).
    ///
    /// Numbers are per bridge: `existing` is that bridge's kept assignments (``matterEndpoints(bridge:)``; their
    /// own `bridge` is not looked at), and the new assignments are on `bridge`. UniqueIDs are unique over all
    /// bridges: one drawn equal to another bridge's (2⁻¹²⁸) is refused by ``saveMatterEndpoints(_:now:)``.
    /// A key of `existing` keeps its assignment. A new key gets the number after the highest of `existing`
    /// (2 when there is none), in the order of `keys`, so a number a departed device kept is never given
    /// again; past 65534 the lowest numbers `existing` does not hold are given, and a key left with none is
    /// in `exhausted` (not served). Its UniqueID is 16 bytes of `generator` as 32 lowercase hex digits,
    /// drawn again in the (2⁻¹²⁸) case it is one already kept or given. A key given twice is assigned once.
    /// Time: linear in `keys` and `existing` (once past 65534, plus one pass over the 65533 numbers).
    ///
    /// - Returns: `all`: the assignment of every key of `keys` that has one, kept or new; `new`: those made
    ///   now, in the order of `keys`; `exhausted`: the keys left without one, in the order of `keys`.
    public static func assignMatterEndpoints(
        for keys: [String], existing: [MatterEndpointAssignment], bridge: Int = 1,
        using generator: inout some RandomNumberGenerator
    ) -> (all: [String: MatterEndpointAssignment], new: [MatterEndpointAssignment], exhausted: [String]) {
        var kept = [String: MatterEndpointAssignment](minimumCapacity: existing.count)
        var uniqueIDs = Set<String>(minimumCapacity: existing.count + keys.count)
        var highest: UInt16 = matterEndpointRange.lowerBound - 1
        for assignment in existing {
            if kept[assignment.key] == nil { kept[assignment.key] = assignment }
            uniqueIDs.insert(assignment.uniqueID)
            highest = max(highest, assignment.endpoint)
        }
        var all = [String: MatterEndpointAssignment](minimumCapacity: keys.count)
        var new: [MatterEndpointAssignment] = []
        var exhausted: [String] = []
        var seen = Set<String>(minimumCapacity: keys.count)
        var free: FreeMatterEndpoints?  // made when the numbers after the highest are used up
        for key in keys where seen.insert(key).inserted {
            if let assignment = kept[key] {
                all[key] = assignment
                continue
            }
            let endpoint: UInt16?
            if highest < matterEndpointRange.upperBound {
                highest += 1
                endpoint = highest
            } else {
                if free == nil { free = FreeMatterEndpoints(used: existing.map(\.endpoint) + new.map(\.endpoint)) }
                endpoint = free?.next()
            }
            guard let endpoint else {
                exhausted.append(key)
                continue
            }
            let uniqueID = drawMatterUniqueID(avoiding: uniqueIDs, &generator)
            uniqueIDs.insert(uniqueID)
            let assignment = MatterEndpointAssignment(key: key, endpoint: endpoint, uniqueID: uniqueID, bridge: bridge)
            all[key] = assignment
            new.append(assignment)
        }
        return (all, new, exhausted)
    }

    /// Whether `uniqueID` is what ``assignMatterEndpoints(for:existing:bridge:using:)`` draws: 32 lowercase hex
    /// digits.
    static func isMatterUniqueID(_ uniqueID: String) -> Bool {
        uniqueID.utf8.count == 32
            && uniqueID.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// 16 bytes of `generator` as 32 lowercase hex digits, not one of `used`.
    private static func drawMatterUniqueID(
        avoiding used: Set<String>, _ generator: inout some RandomNumberGenerator
    ) -> String {
        let digits = Array("0123456789abcdef".utf8)
        for _ in 0..<16 {
            var text: [UInt8] = []
            text.reserveCapacity(32)
            for word in [generator.next(), generator.next()] as [UInt64] {
                for shift in stride(from: 60, through: 0, by: -4) {
                    text.append(digits[Int(truncatingIfNeeded: word >> UInt64(shift) & 0xF)])
                }
            }
            let uniqueID = String(decoding: text, as: UTF8.self)
            if !used.contains(uniqueID) { return uniqueID }
        }
        preconditionFailure("the random number generator gave 16 UniqueIDs already used: it repeats itself")
    }

    /// The table of migration "v12: matter endpoints"; v13 gives it a bridge column
    /// (``migrateToMatterBridges(_:)``).
    static func createMatterEndpointTable(_ db: Database) throws {
        try db.create(table: "matterEndpoint") { table in
            table.primaryKey("key", .text)  // a device id, or "<device id>/<device type key>" for a part
            table.column("endpoint", .integer).notNull().unique()  // 2…65534, never given twice
            table.column("uniqueID", .text).notNull().unique()  // 32 lowercase hex digits
            table.column("assignedAt", .double).notNull()  // seconds since 1970
        }
    }

    /// A kept row, checked; what is wrong with it is said with its key.
    private static func matterEndpoint(_ row: GRDB.Row) throws -> MatterEndpointAssignment {
        guard let key = try? value(row, "key", as: String.self) else {
            throw Unreadable("a row's key is not text; \(matterEndpointRemedy)")
        }
        do {
            let bridge: Int = try number(row, "bridge")
            guard matterBridgeRange.contains(bridge) else {
                throw Unreadable("bridge is \(bridge), not in \(matterBridgeRangeText)")
            }
            let endpoint: UInt16 = try number(row, "endpoint")
            guard matterEndpointRange.contains(endpoint) else {
                throw Unreadable("endpoint is \(endpoint), not in 2…65534")
            }
            let uniqueID = try value(row, "uniqueID", as: String.self)
            guard isMatterUniqueID(uniqueID) else { throw Unreadable("uniqueID is not 32 lowercase hex digits") }
            return MatterEndpointAssignment(key: key, endpoint: endpoint, uniqueID: uniqueID, bridge: bridge)
        } catch {
            throw Unreadable("'\(key)': \(error); \(matterEndpointRemedy)")
        }
    }

    private static let matterEndpointRemedy =
        "delete that row of table matterEndpoint (the device gets a new number) or run `traitbridge matter reset`"

    /// Refuses `assignment` when it is malformed, or its key or number is kept already on its bridge, or its
    /// UniqueID on any bridge.
    private static func checkNewMatterEndpoint(_ assignment: MatterEndpointAssignment, _ db: Database) throws {
        let (bridge, key) = (assignment.bridge, assignment.key)
        guard matterBridgeRange.contains(bridge) else {
            throw Refused("'\(key)': bridge \(bridge) is not a Matter bridge number (\(matterBridgeRangeText))")
        }
        guard matterEndpointRange.contains(assignment.endpoint) else {
            throw Refused("'\(key)': endpoint \(assignment.endpoint) is not in 2…65534")
        }
        guard isMatterUniqueID(assignment.uniqueID) else {
            throw Refused("'\(key)': its UniqueID is not 32 lowercase hex digits")
        }
        let clashes = try GRDB.Row.fetchAll(
            db,
            sql: """
                SELECT bridge, key, endpoint FROM matterEndpoint
                WHERE (bridge = ? AND (key = ? OR endpoint = ?)) OR uniqueID = ?
                """,
            arguments: [bridge, key, Int64(assignment.endpoint), assignment.uniqueID])
        for clash in clashes {
            let heldBy = (try? value(clash, "key", as: String.self)) ?? "a row"
            let number = try? value(clash, "endpoint", as: Int64.self)
            let heldOn = try? value(clash, "bridge", as: Int64.self)
            if heldOn == Int64(bridge) && heldBy == key {
                let kept = number.map(String.init) ?? "?"
                throw Refused(
                    "'\(key)' already has endpoint \(kept) on bridge \(bridge): an assignment is never overwritten")
            }
            if heldOn == Int64(bridge) && number == Int64(assignment.endpoint) {
                throw Refused(
                    "endpoint \(assignment.endpoint) is already '\(heldBy)''s on bridge \(bridge): a number is never "
                        + "given twice on a bridge")
            }
            let other = heldOn.map(String.init) ?? "?"
            throw Refused(
                "the UniqueID of '\(key)' is already '\(heldBy)''s (bridge \(other)): a UniqueID is never given "
                    + "twice, on any bridge")
        }
    }

    /// A write that would change or reuse what is kept, or names no bridge.
    private struct Refused: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// The endpoint numbers free once the numbers after the highest are used up, lowest first.
private struct FreeMatterEndpoints {
    private var isUsed: [Bool]
    private var candidate = Int(DeviceStore.matterEndpointRange.lowerBound)

    init(used: [UInt16]) {
        isUsed = [Bool](repeating: false, count: Int(UInt16.max) + 1)
        for endpoint in used { isUsed[Int(endpoint)] = true }
    }

    /// The lowest free number, now used; nil when none is left.
    mutating func next() -> UInt16? {
        while candidate <= Int(DeviceStore.matterEndpointRange.upperBound) {
            defer { candidate += 1 }
            if !isUsed[candidate] {
                isUsed[candidate] = true
                return UInt16(truncatingIfNeeded: candidate)
            }
        }
        return nil
    }
}
