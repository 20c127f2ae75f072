import CSQLite
import Foundation

/// One connection to an SQLite database file, used from one actor at a time. A statement is
/// bound, stepped and reset within one call; it is prepared once per text and kept for the
/// next call with that text (up to `keptStatements` texts), since compiling the SQL cost more
/// than running it for a store's small transactions.
final class SQLiteConnection {
    private var handle: OpaquePointer?
    /// The file, for messages.
    let path: String
    /// Prepared statements by their SQL text, each reset after its call.
    private var prepared: [String: OpaquePointer] = [:]
    /// The most texts kept prepared; beyond them a statement is finalized after its call (texts
    /// that vary, such as a last batch's shorter insert, do not pile up).
    private let keptStatements = 64

    /// Opens (creating) the file; waits up to `busyTimeout` for another connection's write lock.
    init(path: String, busyTimeout: Duration = .seconds(10)) throws {
        self.path = path
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw RolloutStoreError.storage(
                StoreFailure(.other, "cannot open the store file \(path): \(message)"))
        }
        sqlite3_busy_timeout(handle, Int32(busyTimeout.components.seconds * 1000))
    }

    deinit { close() }

    /// Closes the file; every later call fails.
    func close() {
        for statement in prepared.values { sqlite3_finalize(statement) }
        prepared = [:]
        sqlite3_close(handle)
        handle = nil
    }

    /// Runs one or more statements that take no parameters and return no rows.
    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    /// Runs one statement with `parameters` bound to its `?`s, and returns its rows.
    @discardableResult
    func query(_ sql: String, _ parameters: [SQLiteValue] = []) throws -> [SQLiteRow] {
        let (statement, kept) = try statement(for: sql)
        defer {
            if kept {
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            } else {
                sqlite3_finalize(statement)
            }
        }
        for (index, value) in parameters.enumerated() {
            try check(bind(value, to: statement, at: Int32(index + 1)), sql)
        }
        var rows: [SQLiteRow] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else {
                try check(status, sql)
                return rows
            }
            rows.append(SQLiteRow(columns: (0..<sqlite3_column_count(statement)).map { read(statement, $0) }))
        }
    }

    /// The statement prepared for `sql`, and whether it is kept (prepared before, or now with
    /// room to keep it) rather than to be finalized after its call.
    private func statement(for sql: String) throws -> (OpaquePointer?, kept: Bool) {
        if let kept = prepared[sql] { return (kept, true) }
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), sql)
        guard let statement, prepared.count < keptStatements else { return (statement, false) }
        prepared[sql] = statement
        return (statement, true)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `body` in a write transaction taken at once (`BEGIN IMMEDIATE`), so that two
    /// connections never both read and then write the same rows; rolls back if `body` throws.
    func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func bind(_ value: SQLiteValue, to statement: OpaquePointer?, at index: Int32) -> Int32 {
        switch value {
        case .null: return sqlite3_bind_null(statement, index)
        case .integer(let integer): return sqlite3_bind_int64(statement, index, integer)
        case .real(let real): return sqlite3_bind_double(statement, index, real)
        case .text(let text): return sqlite3_bind_text(statement, index, text, -1, transientDestructor)
        case .blob(let blob):
            return blob.withUnsafeBytes {
                sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transientDestructor)
            }
        }
    }

    private func read(_ statement: OpaquePointer?, _ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, column)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    private func check(_ status: Int32, _ sql: String) throws {
        guard status != SQLITE_OK else { return }
        let message = String(cString: sqlite3_errmsg(handle))
        // SQLite opens any file and finds out at the first statement: another file given as --store
        if status == SQLITE_NOTADB {
            throw RolloutStoreError.storage(
                StoreFailure(
                    .notAStore,
                    "\(path) is not a rollout store (SQLite: \(message)); give the store's file, "
                        + "or a new file ending in .sqlite, .sqlite3 or .db"))
        }
        // busy or locked past the busy timeout: another process holds the file's write lock
        let kind: StoreFailure.Kind =
            [SQLITE_BUSY, SQLITE_LOCKED].contains(status & 0xff) ? .unreachable : .other
        throw RolloutStoreError.storage(
            StoreFailure(kind, "SQLite \(status): \(message) (in: \(sql.prefix(60)))"))
    }
}

/// SQLite copies bound text and blobs at once (SQLITE_TRANSIENT, which the C macro spells as -1).
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A value bound to a statement or read from a row.
enum SQLiteValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

extension SQLiteValue {
    /// NULL for nil.
    static func nullable(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    static func nullable(_ value: Int?) -> SQLiteValue { value.map { .integer(Int64($0)) } ?? .null }
    static func nullable(_ value: Data?) -> SQLiteValue { value.map { .blob($0) } ?? .null }
}

/// One row of a query's result, read by column position.
struct SQLiteRow {
    var columns: [SQLiteValue]

    func int(_ column: Int) -> Int {
        if case .integer(let value) = columns[column] { return Int(value) }
        return 0
    }

    func real(_ column: Int) -> Double? {
        if case .real(let value) = columns[column] { return value }
        return nil
    }

    /// nil for NULL.
    func optionalInt(_ column: Int) -> Int? {
        if case .integer(let value) = columns[column] { return Int(value) }
        return nil
    }

    func text(_ column: Int) -> String? {
        if case .text(let value) = columns[column] { return value }
        return nil
    }

    func blob(_ column: Int) -> Data? {
        if case .blob(let value) = columns[column] { return value }
        return nil
    }
}
