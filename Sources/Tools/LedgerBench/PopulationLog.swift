import LedgerCore
import LedgerLog
import LedgerService
import LedgerStore
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A data directory holding a ``Population``'s records (and, optionally, the same records in SQLite), built
/// once per size and reused by every row that needs it.
///
/// Records are appended as the ledger appends them (`SubjectKeys.keys(for:)`, `LedgerRecord.encoded()`), in
/// batches of 65,536, straight to the log. Users are generated in cohorts of 16,384 whose records are
/// interleaved in signing order, so one user's records lie scattered over hundreds of megabytes of log, as in
/// production; the last cohort is cut at the requested count (its latest records are "not yet received").
struct PopulationLog {
    /// The ledger's data directory.
    let path: String
    /// The SQLite peer's database file, when built.
    let sqlitePath: String?
    /// Records appended.
    let records: Int
    /// Users `1...users` were generated (a few of the last cohort may have had all their records cut).
    let users: Int
    /// Records per user before the cut: a whole year of each user's subscription.
    let generatedPerUser: Double
    /// How long building took (ledger and SQLite together), in seconds.
    let seconds: Double

    static let cohort = 16_384
    static let batch = 65_536

    /// Generates `records` records and appends them to a new log at `path` (and to SQLite at `sqlitePath`).
    static func build(records: Int, seed: UInt64, path: String, sqlitePath: String?) throws -> PopulationLog {
        let started = now()
        let population = Population(seed: seed)
        let log = try EventLog.openWriter(at: path, environment: LedgerEnvironment.production.rawValue)
        defer { log.close() }
        let peer = try sqlitePath.map { try SQLiteQueryPeer(path: $0, create: true) }
        var appended = 0
        var nextUser: Int64 = 1
        var users = 0
        var generated = 0
        while appended < records {
            // Enough users for what is left (about 20 records each), at most a cohort: the last cohort's cut
            // then drops only a few late records instead of most of a cohort's.
            let perUser = generated > 0 ? Double(generated) / Double(users) : 20
            let wanted = Int(Double(records - appended) / perUser * 1.02) + 1
            let first = nextUser
            nextUser += Int64(min(cohort, max(64, wanted)))
            var entries = generate(population, users: first..<nextUser)
            generated += entries.count
            if entries.count > records - appended {
                entries.removeLast(entries.count - (records - appended))
            }
            users = Int(nextUser - 1)
            for start in stride(from: 0, to: entries.count, by: batch) {
                let slice = Array(entries[start..<min(start + batch, entries.count)])
                let outcomes = try log.append(slice)
                guard outcomes.allSatisfy({ if case .appended = $0 { true } else { false } }) else {
                    throw BenchError("the population repeated a notificationUUID; change the seed")
                }
                try peer?.insert(slice, firstSeq: Int64(appended + start + 1))
            }
            appended += entries.count
            progress("  building \(records) records: \(appended)")
        }
        try peer?.finishLoading()
        log.close()
        // Both stores' files written back before any row measures them: otherwise the first row after a build
        // shares the disk with gigabytes of writeback, the ledger's and SQLite's alike.
        sync()
        progress("")
        return PopulationLog(
            path: path, sqlitePath: sqlitePath, records: appended, users: users,
            generatedPerUser: Double(generated) / Double(max(1, users)), seconds: now() - started)
    }

    /// The log entries of a cohort of users, on two threads, in signing order (ties by user).
    private static func generate(_ population: Population, users: Range<Int64>) -> [LogEntry] {
        let threads = 2
        let parts = ResultSlots<[(Int64, Int64, LogEntry)]>(count: threads)
        runThreads(threads) { thread in
            var out: [(Int64, Int64, LogEntry)] = []
            for user in stride(from: users.lowerBound + Int64(thread), to: users.upperBound, by: threads) {
                for record in population.records(user: user) {
                    let entry = LogEntry(
                        idempotencyKey: record.idempotencyKey, subjectKeys: SubjectKeys.keys(for: record),
                        payload: record.encoded())
                    out.append((record.notification?.signedDate.milliseconds ?? 0, user, entry))
                }
            }
            parts.set(thread, out)
        }
        var all = parts.values().flatMap { $0 ?? [] }
        all.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        return all.map(\.2)
    }

    /// A progress line on stderr, overwritten in place (empty: clear it).
    static func progress(_ text: String) {
        let line = "\r\u{1B}[K" + text
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}
