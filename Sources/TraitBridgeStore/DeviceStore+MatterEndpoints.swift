public import FoundationEssentials
import GRDB

/// A bridged device's Matter identity as the registry keeps it: its endpoint number and the UniqueID
/// its Bridged Device Basic Information serves. Controllers key rooms and automations by both, so an
/// assignment never changes and is never given to another key; only `matter reset` forgets them.
public struct MatterEndpointAssignment: Sendable, Hashable {
    /// A device id, or `<device id>/<device type key>` for a part of a composed device.
    public var key: String
    /// 2…65534 (``DeviceStore/matterEndpointRange``): 0 is the root node, 1 the aggregator.
    public var endpoint: UInt16
    /// 16 random bytes as 32 lowercase hex digits.
    public var uniqueID: String

    public init(key: String, endpoint: UInt16, uniqueID: String) {
        self.key = key
        self.endpoint = endpoint
        self.uniqueID = uniqueID
    }
}

extension DeviceStore {
    /// The endpoint numbers a bridged device may have: 0 is the root node, 1 the aggregator, 65535 is
    /// reserved (the spec's invalid endpoint).
    public static let matterEndpointRange: ClosedRange<UInt16> = 2...65534

    /// Every endpoint assignment kept, by endpoint number: those of devices gone too (their numbers are
    /// never given again). A row that is not one (a number out of ``matterEndpointRange``, a UniqueID
    /// that is not 32 lowercase hex digits: a damaged or edited registry) is an error that names its key.
    public func matterEndpoints() throws(StoreError) -> [MatterEndpointAssignment] {
        do {
            return try queue.read { db in
                try GRDB.Row.fetchAll(db, sql: "SELECT key, endpoint, uniqueID FROM matterEndpoint ORDER BY endpoint")
                    .map(Self.matterEndpoint)
            }
        } catch {
            throw .readFailed("the Matter bridge's endpoints: \(error)")
        }
    }

    /// Keeps new assignments, all in one transaction: none is written when one is refused. A key, endpoint
    /// number or UniqueID already kept (or given twice in `new`) is refused and named, never overwritten;
    /// so is an endpoint out of ``matterEndpointRange`` or a UniqueID that is not 32 lowercase hex digits.
    public func saveMatterEndpoints(_ new: [MatterEndpointAssignment], now: Date) throws(StoreError) {
        guard !new.isEmpty else { return }
        do {
            try queue.write { db in
                for assignment in new {
                    try Self.checkNewMatterEndpoint(assignment, db)
                    try db.execute(
                        sql: "INSERT INTO matterEndpoint (key, endpoint, uniqueID, assignedAt) VALUES (?, ?, ?, ?)",
                        arguments: [
                            assignment.key, Int64(assignment.endpoint), assignment.uniqueID, now.timeIntervalSince1970,
                        ])
                }
            }
        } catch {
            throw .writeFailed("the Matter bridge's endpoints: \(error)")
        }
    }

    /// `matter reset`: keeps `record` as ``saveMatterBridge(_:now:)`` does and forgets every endpoint
    /// assignment, in one transaction (the controllers that knew them are gone; numbers start at 2 again).
    public func resetMatterBridge(_ record: MatterBridgeRecord, now: Date) throws(StoreError) {
        do {
            try queue.write { db in
                try Self.writeMatterBridge(record, now: now, db)
                try db.execute(sql: "DELETE FROM matterEndpoint")
            }
        } catch {
            throw .writeFailed("the Matter bridge's state: \(error)")
        }
        restrictToOwner()
    }

    /// Assigns endpoints to `keys`, a pure function of its arguments (the caller saves `new` with
    /// ``saveMatterEndpoints(_:now:)``).
    ///
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
        for keys: [String], existing: [MatterEndpointAssignment], using generator: inout some RandomNumberGenerator
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
            let assignment = MatterEndpointAssignment(key: key, endpoint: endpoint, uniqueID: uniqueID)
            all[key] = assignment
            new.append(assignment)
        }
        return (all, new, exhausted)
    }

    /// Whether `uniqueID` is what ``assignMatterEndpoints(for:existing:using:)`` draws: 32 lowercase hex digits.
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

    /// The table of migration "v12: matter endpoints".
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
            let endpoint: UInt16 = try number(row, "endpoint")
            guard matterEndpointRange.contains(endpoint) else {
                throw Unreadable("endpoint is \(endpoint), not in 2…65534")
            }
            let uniqueID = try value(row, "uniqueID", as: String.self)
            guard isMatterUniqueID(uniqueID) else { throw Unreadable("uniqueID is not 32 lowercase hex digits") }
            return MatterEndpointAssignment(key: key, endpoint: endpoint, uniqueID: uniqueID)
        } catch {
            throw Unreadable("'\(key)': \(error); \(matterEndpointRemedy)")
        }
    }

    private static let matterEndpointRemedy =
        "delete that row of table matterEndpoint (the device gets a new number) or run `traitbridge matter reset`"

    /// Refuses `assignment` when it is malformed or its key, number or UniqueID is kept already.
    private static func checkNewMatterEndpoint(_ assignment: MatterEndpointAssignment, _ db: Database) throws {
        let key = assignment.key
        guard matterEndpointRange.contains(assignment.endpoint) else {
            throw Refused("'\(key)': endpoint \(assignment.endpoint) is not in 2…65534")
        }
        guard isMatterUniqueID(assignment.uniqueID) else {
            throw Refused("'\(key)': its UniqueID is not 32 lowercase hex digits")
        }
        let clashes = try GRDB.Row.fetchAll(
            db, sql: "SELECT key, endpoint FROM matterEndpoint WHERE key = ? OR endpoint = ? OR uniqueID = ?",
            arguments: [key, Int64(assignment.endpoint), assignment.uniqueID])
        for clash in clashes {
            let heldBy = (try? value(clash, "key", as: String.self)) ?? "a row"
            let number = try? value(clash, "endpoint", as: Int64.self)
            if heldBy == key {
                let kept = number.map(String.init) ?? "?"
                throw Refused("'\(key)' already has endpoint \(kept): an assignment is never overwritten")
            }
            if number == Int64(assignment.endpoint) {
                throw Refused("endpoint \(assignment.endpoint) is already '\(heldBy)''s: a number is never given twice")
            }
            throw Refused("the UniqueID of '\(key)' is already '\(heldBy)''s: a UniqueID is never given twice")
        }
    }

    /// A write that would change or reuse what is kept.
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
