import LedgerStore

/// The append peer: the same records in SQLite (WAL, synchronous=FULL), payloads as BLOBs, a unique index on the
/// idempotency key and an index on the subject, one transaction per batch.
final class SQLitePeer {
    private let database: SQLiteDatabase
    private let insertRecord: SQLiteDatabase.Statement
    private let insertSubject: SQLiteDatabase.Statement

    init(path: String) throws {
        database = try SQLiteDatabase(path: path)
        try database.exec(
            """
            PRAGMA journal_mode=WAL;
            PRAGMA synchronous=FULL;
            CREATE TABLE IF NOT EXISTS records(
                seq INTEGER PRIMARY KEY, idempotency_key TEXT NOT NULL UNIQUE,
                recorded_at INTEGER NOT NULL, payload BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS subjects(subject TEXT NOT NULL, seq INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS subjects_by_subject ON subjects(subject);
            """)
        insertRecord = try database.prepare(
            "INSERT INTO records(idempotency_key, recorded_at, payload) VALUES (?, ?, ?)")
        insertSubject = try database.prepare("INSERT INTO subjects(subject, seq) VALUES (?, ?)")
    }

    /// Inserts a batch in one durable transaction.
    func append(_ entries: ArraySlice<LogEntry>, time: Int64) throws {
        try database.exec("BEGIN")
        for entry in entries {
            insertRecord.bind(1, entry.idempotencyKey)
            insertRecord.bind(2, time)
            insertRecord.bind(3, blob: entry.payload)
            try insertRecord.run()
            let seq = database.lastRowID
            for subject in entry.subjectKeys {
                insertSubject.bind(1, subject)
                insertSubject.bind(2, seq)
                try insertSubject.run()
            }
        }
        try database.exec("COMMIT")
    }
}
