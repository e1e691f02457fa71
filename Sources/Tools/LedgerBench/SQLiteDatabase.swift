import CSQLite

/// One SQLite connection: the only file that talks to the C library, for both peers.
final class SQLiteDatabase {
    private(set) var handle: OpaquePointer?
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Opens (or creates) a database file.
    init(path: String) throws {
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw BenchError("sqlite3_open_v2 \(path): \(reason)")
        }
    }

    deinit { sqlite3_close_v2(handle) }

    /// The last error's message.
    var message: String { String(cString: sqlite3_errmsg(handle)) }

    /// Runs SQL statements that return no rows.
    func exec(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError("sqlite: \(message)") }
    }

    /// A prepared statement.
    func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw BenchError("sqlite prepare: \(message)")
        }
        return Statement(statement, database: self)
    }

    /// The rowid of the last insert.
    var lastRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// A prepared statement, finalized once on deinit.
    final class Statement {
        private let statement: OpaquePointer?
        private let database: SQLiteDatabase

        init(_ statement: OpaquePointer?, database: SQLiteDatabase) {
            self.statement = statement
            self.database = database
        }

        deinit { sqlite3_finalize(statement) }

        func bind(_ index: Int32, _ text: String) {
            sqlite3_bind_text(statement, index, text, -1, SQLiteDatabase.transient)
        }
        func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(statement, index, value) }
        func bind(_ index: Int32, blob: [UInt8]) {
            _ = blob.withUnsafeBytes {
                sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), SQLiteDatabase.transient)
            }
        }

        /// Runs a statement that returns no rows, then resets it.
        func run() throws {
            defer { sqlite3_reset(statement) }
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError("sqlite step: \(database.message)") }
        }

        /// Steps through the rows, calling `row` with this statement for each; then resets it.
        func forEachRow(_ row: (Statement) throws -> Void) throws {
            defer { sqlite3_reset(statement) }
            while true {
                let code = sqlite3_step(statement)
                if code == SQLITE_DONE { return }
                guard code == SQLITE_ROW else { throw BenchError("sqlite step: \(database.message)") }
                try row(self)
            }
        }

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

        /// The column's bytes, valid only until the next step.
        func blob(_ column: Int32) -> UnsafeRawBufferPointer {
            let base = sqlite3_column_blob(statement, column)
            return UnsafeRawBufferPointer(start: base, count: Int(sqlite3_column_bytes(statement, column)))
        }
    }
}
