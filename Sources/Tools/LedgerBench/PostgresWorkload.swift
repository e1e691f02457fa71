import LedgerPostgres
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The PostgreSQL rows: the same workload and batches as the file log's rows, against a server named by
/// `$LEDGER_BENCH_POSTGRES` (or `$LEDGER_TEST_POSTGRES`, which `Scripts/postgres run` sets). Each run gets a schema
/// of its own; every schema is dropped when the benchmark exits. Without a server the rows are left out.
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

    /// A schema holding the whole workload, built once.
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

    static func dropAll() {
        guard let base = baseURL, let connection = try? PostgresConnection(base) else { return }
        for schema in schemas { _ = try? connection.run("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        schemas = []
    }
}

extension BenchRow {
    /// A row measuring one rate (records/s), higher is better.
    init(id: String, title: String, unit: String, rate: @escaping (BenchContext) throws -> Double) {
        self.init(
            id: id, metrics: [Metric(id, title, unit: unit, better: .higher)],
            run: { context in [Sample(try rate(context))] })
    }

    /// The PostgreSQL rows (none without a server).
    static var postgres: [BenchRow] {
        guard let base = PostgresWorkload.baseURL else {
            print("  (PostgreSQL rows left out: set LEDGER_BENCH_POSTGRES, or run under Scripts/postgres run)")
            return []
        }
        return [
            BenchRow(id: "pg.append", title: "PostgreSQL: durable append, same batches", unit: "records/s") {
                context in
                let store = try PostgresStore.openWriter(
                    url: try PostgresWorkload.freshURL(base), environment: "sandbox")
                defer { store.close() }
                let entries = context.workload.entries
                let batch = context.options.batch
                let start = now()
                for first in stride(from: 0, to: entries.count, by: batch) {
                    _ = try store.append(Array(entries[first..<min(first + batch, entries.count)]))
                }
                return Double(entries.count) / (now() - start)
            },
            BenchRow(
                id: "pg.append.concurrent", title: "PostgreSQL: 16 threads, 1 record per call (group commit)",
                unit: "records/s"
            ) { context in
                let store = try PostgresStore.openWriter(
                    url: try PostgresWorkload.freshURL(base), environment: "sandbox")
                defer { store.close() }
                let entries = Array(context.workload.entries.prefix(max(1_000, context.options.records / 10)))
                let threads = 16
                let start = now()
                runThreads(threads) { thread in
                    for index in stride(from: thread, to: entries.count, by: threads) {
                        _ = try? store.append(entries[index])
                    }
                }
                return Double(entries.count) / (now() - start)
            },
            BenchRow(
                id: "pg.rebuild", title: "PostgreSQL: rebuild (re-derive the subject index, read every record)",
                unit: "records/s"
            ) { context in
                let url = try PostgresWorkload.builtURL(base, context)
                let start = now()
                let store = try PostgresStore.openWriter(url: url, environment: "sandbox")
                defer { store.close() }
                try store.rebuildIndexes(progress: nil)
                var count = 0
                var bytes = 0
                try store.forEach(from: 1) { record in
                    count += 1
                    bytes &+= record.payload.count
                }
                return Double(count) / (now() - start)
            },
            BenchRow(
                id: "pg.verify", title: "PostgreSQL: verify (read every record, whole hash chain)", unit: "records/s"
            ) {
                context in
                let url = try PostgresWorkload.builtURL(base, context)
                let start = now()
                let store = try PostgresStore.openReader(url: url)
                defer { store.close() }
                let report = try store.verify()
                guard report.ok else { throw BenchError("verify failed: \(report.problem!.message)") }
                return Double(report.headSeq) / (now() - start)
            },
        ]
    }
}
