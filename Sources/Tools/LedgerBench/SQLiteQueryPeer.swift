import LedgerCore
import LedgerService
import LedgerStore

/// The query peer: the population's records in SQLite as BLOBs with a covering index on (subject, seq), answering
/// `state(of:at:knownAt:)` the way ``Ledger`` does: the subject's records, then every record of the subscriptions
/// they name, each decoded once, folded by the same ``EntitlementFold``.
///
/// Loaded in bulk (synchronous=OFF, the index built after the load): only its reads are measured.
final class SQLiteQueryPeer {
    private let database: SQLiteDatabase
    private var insertRecord: SQLiteDatabase.Statement?
    private var insertSubject: SQLiteDatabase.Statement?
    private var select: SQLiteDatabase.Statement?
    private let fold = EntitlementFold(catalog: .visla)

    /// Opens the database; `create` starts the bulk load.
    init(path: String, create: Bool) throws {
        database = try SQLiteDatabase(path: path)
        if create {
            try database.exec(
                """
                PRAGMA journal_mode=WAL;
                PRAGMA synchronous=OFF;
                CREATE TABLE records(seq INTEGER PRIMARY KEY, recorded_at INTEGER NOT NULL, payload BLOB NOT NULL);
                CREATE TABLE subjects(subject TEXT NOT NULL, seq INTEGER NOT NULL);
                """)
            insertRecord = try database.prepare("INSERT INTO records(seq, recorded_at, payload) VALUES (?, ?, ?)")
            insertSubject = try database.prepare("INSERT INTO subjects(subject, seq) VALUES (?, ?)")
        } else {
            try database.exec("PRAGMA cache_size=-65536;")  // 64 MiB of page cache, as the OS cache is warm anyway
            select = try database.prepare(
                """
                SELECT r.seq, r.recorded_at, r.payload FROM subjects s JOIN records r ON r.seq = s.seq
                WHERE s.subject = ? ORDER BY s.seq
                """)
        }
    }

    /// Inserts a batch of the bulk load, numbered from `firstSeq` like the log numbers them.
    func insert(_ entries: [LogEntry], firstSeq: Int64) throws {
        guard let insertRecord, let insertSubject else { throw BenchError("the SQLite peer is not loading") }
        try database.exec("BEGIN")
        for (offset, entry) in entries.enumerated() {
            let seq = firstSeq + Int64(offset)
            insertRecord.bind(1, seq)
            insertRecord.bind(2, Int64(0))
            insertRecord.bind(3, blob: entry.payload)
            try insertRecord.run()
            for subject in Set(entry.subjectKeys) {
                insertSubject.bind(1, subject)
                insertSubject.bind(2, seq)
                try insertSubject.run()
            }
        }
        try database.exec("COMMIT")
    }

    /// Ends the bulk load: builds the subject index and checkpoints the WAL.
    func finishLoading() throws {
        insertRecord = nil
        insertSubject = nil
        try database.exec(
            """
            CREATE INDEX subjects_by_subject ON subjects(subject, seq);
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
    }

    /// The subject's state, as ``Ledger/state(of:at:knownAt:)`` computes it.
    func state(of query: SubjectQuery, at: Instant) throws -> EntitlementState {
        guard let select else { throw BenchError("the SQLite peer is not open for queries") }
        var seen = Set<Int64>()
        var entries: [LedgerEntry] = []
        var subscriptions: [String] = []
        func collect(_ key: String) throws {
            select.bind(1, key)
            try select.forEachRow { row in
                let seq = row.int64(0)
                guard seen.insert(seq).inserted else { return }
                let record = try LedgerRecord(decoding: row.blob(2))
                entries.append(
                    LedgerEntry(seq: UInt64(seq), recordedAt: Instant(milliseconds: row.int64(1)), record: record))
                if let otid = record.subject.originalTransactionId { subscriptions.append(otid) }
                if let otid = record.transaction?.originalTransactionId { subscriptions.append(otid) }
            }
        }
        try collect(SubjectKeys.key(for: query))
        var visited = Set<String>()
        while let otid = subscriptions.popLast() {
            guard visited.insert(otid).inserted else { continue }
            try collect(SubjectKeys.subscription(otid))
        }
        return fold.state(of: query, entries: entries, at: at, knownAt: nil)
    }

    /// Re-derives every user's subscriptions at `at`: the records of each user in subject order, decoded and
    /// folded per user, as ``Ledger/rebuildProjections(at:progress:)`` folds each component.
    func rebuild(at: Instant) throws -> (users: Int, devices: Int) {
        let statement = try database.prepare(
            """
            SELECT s.subject, r.seq, r.recorded_at, r.payload FROM subjects s JOIN records r ON r.seq = s.seq
            WHERE s.subject >= 'u:' AND s.subject < 'u;' ORDER BY s.subject, s.seq
            """)
        var users = 0
        var devices = 0
        var entries: [LedgerEntry] = []
        var current: [UInt8] = []
        func flush() {
            guard !entries.isEmpty else { return }
            let owned = fold.subscriptions(in: entries, at: at, knownAt: nil)
            if owned.contains(where: { $0.owner.userId != nil }) { users += 1 }
            for item in owned where item.state.status.isEntitled { devices += item.state.devices }
            entries.removeAll(keepingCapacity: true)
        }
        try statement.forEachRow { row in
            let subject = row.blob(0)
            if !subject.elementsEqual(current) {
                flush()
                current = Array(subject)
            }
            let record = try LedgerRecord(decoding: row.blob(3))
            entries.append(
                LedgerEntry(seq: UInt64(row.int64(1)), recordedAt: Instant(milliseconds: row.int64(2)), record: record))
        }
        flush()
        return (users, devices)
    }

    /// Reads every record's payload in seq order; returns how many.
    func scan() throws -> Int {
        let statement = try database.prepare("SELECT seq, payload FROM records ORDER BY seq")
        var count = 0
        var bytes = 0
        try statement.forEachRow { row in
            bytes &+= row.blob(1).count
            count += 1
        }
        return bytes >= 0 ? count : 0
    }
}
