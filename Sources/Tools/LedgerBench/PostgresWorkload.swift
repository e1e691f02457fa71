import LedgerCore
import LedgerLog
import LedgerPostgres
import LedgerStore
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The PostgreSQL rows' inputs: the same workload and batches as the file log's rows, against a server named by
/// `$LEDGER_BENCH_POSTGRES` (or `$LEDGER_TEST_POSTGRES`, which `Scripts/postgres run` sets). Each run gets a schema
/// of its own; every schema is dropped when the benchmark exits (kept, and named on stderr, when
/// `$LEDGER_BENCH_POSTGRES_KEEP` is set: to point `ledger serve --store` at a populated ledger). Without a server
/// the rows are left out.
enum PostgresWorkload {
    /// The server's connection string, when one was given.
    static let baseURL: String? = {
        for name in ["LEDGER_BENCH_POSTGRES", "LEDGER_TEST_POSTGRES"] {
            if let value = getenv(name), value.pointee != 0 { return String(cString: value) }
        }
        return nil
    }()

    /// Schemas created so far (dropped at exit). The benchmark runs its rows on one thread.
    nonisolated(unsafe) private static var schemas: [String] = []
    nonisolated(unsafe) private static var prebuilt: String?
    nonisolated(unsafe) private static var populations: [Int: String] = [:]
    nonisolated(unsafe) private static var counter = 0

    /// A connection string for a new, empty schema.
    static func freshURL(_ base: String) throws -> String {
        if schemas.isEmpty { atexit { PostgresWorkload.dropAll() } }
        counter += 1
        let schema = "ledger_bench_\(getpid())_\(counter)"
        try PostgresConnection(base).run("CREATE SCHEMA \(schema)")
        schemas.append(schema)
        return base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + schema
    }

    /// A schema holding the whole synthetic workload, built once.
    static func builtURL(_ base: String, _ context: BenchContext) throws -> String {
        if let prebuilt { return prebuilt }
        let url = try freshURL(base)
        let store = try PostgresStore.openWriter(url: url, environment: "sandbox")
        defer { store.close() }
        let entries = context.workload.entries
        for start in stride(from: 0, to: entries.count, by: 10_000) {
            _ = try store.append(Array(entries[start..<min(start + 10_000, entries.count)]))
        }
        prebuilt = url
        return url
    }

    /// A schema holding the realistic population of `records` records (the query rows' file log, copied record
    /// by record with its times, so both chains end in the same hash), built once.
    static func populationURL(_ base: String, _ context: BenchContext, records: Int) throws -> String {
        if let built = populations[records] { return built }
        let population = try context.population(records: records)
        let started = now()
        let url = try freshURL(base)
        let source = try EventLog.openReader(at: population.path)
        defer { source.close() }
        let store = try PostgresStore.openWriter(url: url, environment: LedgerEnvironment.production.rawValue)
        defer { store.close() }
        var batch: [LogEntry] = []
        batch.reserveCapacity(10_000)
        try source.forEach(from: 1) { record in
            batch.append(LogEntry(record))
            if batch.count == 10_000 {
                _ = try store.append(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { _ = try store.append(batch) }
        guard store.head.hash == source.head.hash else {
            throw BenchError("the PostgreSQL copy of the population ends in another hash than the file log")
        }
        populations[records] = url
        let seconds = now() - started
        // The queries meet the tables as autovacuum leaves them a minute after a bulk load (visibility map set,
        // statistics taken), not the vacuum of a million fresh rows running beside them.
        let vacuumStarted = now()
        _ = try PostgresConnection(url).run("VACUUM ANALYZE")
        context.note(
            "PostgreSQL copy of the population of \(format(Double(population.records))) records: appended in "
                + "batches of 10,000 in \(fixed(seconds, 1)) s (\(format(Double(population.records) / seconds)) "
                + "records/s), then vacuumed and analysed in \(fixed(now() - vacuumStarted, 1)) s")
        return url
    }

    static func dropAll() {
        if getenv("LEDGER_BENCH_POSTGRES_KEEP") != nil {
            for schema in schemas { PopulationLog.progress("kept schema \(schema)\n") }
            return
        }
        guard let base = baseURL, let connection = try? PostgresConnection(base) else { return }
        for schema in schemas { _ = try? connection.run("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        schemas = []
    }
}
