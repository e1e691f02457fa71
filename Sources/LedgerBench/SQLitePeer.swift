import CSQLite
import LedgerLog

/// The peer: the same records in SQLite (WAL, synchronous=FULL), payloads as BLOBs, a unique index on the
/// idempotency key and an index on the subject, one transaction per batch.
final class SQLitePeer {
    private var db: OpaquePointer?
    private var insertRecord: OpaquePointer?
    private var insertSubject: OpaquePointer?
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            throw BenchError("sqlite3_open_v2 \(path): \(message)")
        }
        try exec(
            """
            PRAGMA journal_mode=WAL;
            PRAGMA synchronous=FULL;
            CREATE TABLE IF NOT EXISTS records(
                seq INTEGER PRIMARY KEY, idempotency_key TEXT NOT NULL UNIQUE,
                recorded_at INTEGER NOT NULL, payload BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS subjects(subject TEXT NOT NULL, seq INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS subjects_by_subject ON subjects(subject);
            """)
        insertRecord = try prepare("INSERT INTO records(idempotency_key, recorded_at, payload) VALUES (?, ?, ?)")
        insertSubject = try prepare("INSERT INTO subjects(subject, seq) VALUES (?, ?)")
    }

    deinit {
        sqlite3_finalize(insertRecord)
        sqlite3_finalize(insertSubject)
        sqlite3_close_v2(db)
    }

    private var message: String { String(cString: sqlite3_errmsg(db)) }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError("sqlite: \(message)") }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw BenchError("sqlite prepare: \(message)")
        }
        return statement
    }

    /// Inserts a batch in one durable transaction.
    func append(_ entries: ArraySlice<LogEntry>, time: Int64) throws {
        try exec("BEGIN")
        for entry in entries {
            sqlite3_bind_text(insertRecord, 1, entry.idempotencyKey, -1, Self.transient)
            sqlite3_bind_int64(insertRecord, 2, time)
            _ = entry.payload.withUnsafeBytes {
                sqlite3_bind_blob(insertRecord, 3, $0.baseAddress, Int32($0.count), Self.transient)
            }
            guard sqlite3_step(insertRecord) == SQLITE_DONE else { throw BenchError("sqlite insert: \(message)") }
            sqlite3_reset(insertRecord)
            let seq = sqlite3_last_insert_rowid(db)
            for subject in entry.subjectKeys {
                sqlite3_bind_text(insertSubject, 1, subject, -1, Self.transient)
                sqlite3_bind_int64(insertSubject, 2, seq)
                guard sqlite3_step(insertSubject) == SQLITE_DONE else { throw BenchError("sqlite insert: \(message)") }
                sqlite3_reset(insertSubject)
            }
        }
        try exec("COMMIT")
    }

    /// Reads every record in seq order; returns how many and the payload bytes seen.
    func scan() throws -> (count: Int, bytes: Int) {
        let statement = try prepare("SELECT seq, idempotency_key, recorded_at, payload FROM records ORDER BY seq")
        defer { sqlite3_finalize(statement) }
        var count = 0
        var bytes = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            bytes += Int(sqlite3_column_bytes(statement, 3))
            _ = sqlite3_column_blob(statement, 3)
            count += 1
        }
        return (count, bytes)
    }
}

/// A benchmark failure.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
