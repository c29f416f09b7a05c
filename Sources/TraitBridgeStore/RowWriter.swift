import FoundationEssentials
import GRDB
import GRDBSQLite
import TraitBridgeModel

/// Runs a compiled (and cached) insert or delete with its values bound through SQLite's C API.
///
/// A list of 10 000 devices writes some 100 000 rows in one transaction; GRDB's own arguments
/// (an array of existentials per row, each converted to a `DatabaseValue`) cost four times what
/// SQLite does. Text is bound with its byte length, so a NUL inside it is kept (``StoredText``
/// reads it back whole). Every SQLite return code of the registry's writes is checked here.
struct RowWriter {
    private let statement: Statement
    private let connection: OpaquePointer?
    private var index: Int32 = 0

    init(_ db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        connection = db.sqliteConnection
    }

    /// Binds `bind`'s values in order (the statement's `?` placeholders) and runs the statement once.
    mutating func run(_ bind: (inout RowWriter) throws -> Void) throws {
        let handle = statement.sqliteStatement
        try check(sqlite3_reset(handle))
        try check(sqlite3_clear_bindings(handle))
        index = 0
        try bind(&self)
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            try check(code)
            throw DatabaseError(message: "\(statement.sql): a write returned rows")
        }
    }

    mutating func text(_ value: String?) throws {
        index += 1
        guard var value else { return try check(sqlite3_bind_null(statement.sqliteStatement, index)) }
        let handle = statement.sqliteStatement
        let position = index
        let code = value.withUTF8 { bytes in
            sqlite3_bind_text(handle, position, bytes.baseAddress, Int32(clamping: bytes.count), transient)
        }
        try check(code)
    }

    mutating func int(_ value: Int?) throws { try int64(value.map { Int64(truncatingIfNeeded: $0) }) }

    mutating func int64(_ value: Int64?) throws {
        index += 1
        guard let value else { return try check(sqlite3_bind_null(statement.sqliteStatement, index)) }
        try check(sqlite3_bind_int64(statement.sqliteStatement, index, value))
    }

    mutating func bool(_ value: Bool) throws { try int(value ? 1 : 0) }

    mutating func bytes(_ value: [UInt8]) throws { try value.withUnsafeBytes { try blob($0) } }

    /// Binds a blob (copied by SQLite: `transient`).
    private mutating func blob(_ bytes: UnsafeRawBufferPointer) throws {
        index += 1
        try check(
            sqlite3_bind_blob(
                statement.sqliteStatement, index, bytes.baseAddress, Int32(clamping: bytes.count), transient))
    }

    /// A value GRDB converted (a date, as GRDB writes dates everywhere else in the registry).
    mutating func value(_ value: DatabaseValue) throws {
        switch value.storage {
        case .null: try text(nil)
        case .int64(let number): try int64(number)
        case .double(let number):
            index += 1
            try check(sqlite3_bind_double(statement.sqliteStatement, index, number))
        case .string(let string): try text(string)
        case .blob(let data): try data.withUnsafeBytes { try blob($0) }
        }
    }

    /// The columns of a device row after its id and times, in the order the device statements name them.
    mutating func describe(_ record: DeviceRecord) throws {
        let source = record.sources.first
        try text(record.name)
        try text(record.roomName)
        try text(source?.family ?? "")
        try text(source?.instance ?? "")
        try text(source?.nativeID ?? "")
        try int(record.identity.vendorID.map { Int($0) })
        try int(record.identity.productID.map { Int($0) })
        try text(record.identity.uniqueID)
        try text(record.identity.serialNumber)
        try text(record.info.manufacturer)
        try text(record.info.model)
        try text(record.info.hardwareVersion)
        try text(record.info.softwareVersion)
        try bool(record.isMatterDevice)
    }

    /// Rows the last run inserted, changed or deleted.
    var changedRows: Int { connection.map { Int(sqlite3_changes($0)) } ?? 0 }

    private func check(_ code: Int32) throws {
        guard code != SQLITE_OK && code != SQLITE_DONE else { return }
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
    }
}

/// SQLite copies the bytes before the bind returns (`SQLITE_TRANSIENT`, a macro Swift cannot import).
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
