import LedgerPostgres
import LedgerSystem
import Synchronization

extension BenchRow {
    /// A row measuring one rate (records/s), higher is better.
    init(
        id: String, title: String, unit: String, target: Target? = nil, rate: @escaping (BenchContext) throws -> Double
    ) {
        self.init(
            id: id, metrics: [Metric(id, title, unit: unit, better: .higher, target: target)],
            run: { context in [Sample(try rate(context))] })
    }

    /// The PostgreSQL rows (none without a server): appends beside SQLite's, group commit, the walks, and
    /// start-up and queries on the realistic population of `queryRecords` records.
    static func postgres(queryRecords: Int, label: String) -> [BenchRow] {
        guard let base = PostgresWorkload.baseURL else {
            print("  (PostgreSQL rows left out: set LEDGER_BENCH_POSTGRES, or run under Scripts/postgres run)")
            return []
        }
        return [
            BenchRow(
                id: "pg.append",
                metrics: [
                    Metric(
                        "pg.append", "PostgreSQL: durable append, batches of N (SQLite: the same batches)",
                        unit: "records/s", better: .higher, peer: true),
                    Metric(
                        "pg.append.indexed", "↳ until the subject index, filled after the appends, covers them too",
                        unit: "records/s", better: .higher, peer: true),
                ]
            ) { context in
                let store = try PostgresStore.openWriter(
                    url: try PostgresWorkload.freshURL(base), environment: "sandbox")
                defer { store.close() }
                let entries = context.workload.entries
                let batch = context.options.batch
                let start = now()
                for first in stride(from: 0, to: entries.count, by: batch) {
                    _ = try store.append(Array(entries[first..<min(first + batch, entries.count)]))
                }
                let appended = now()
                try store.indexSubjects()
                let indexed = now()
                let sqlite = try appendSQLite(context)
                return [
                    Sample(Double(entries.count) / (appended - start), peer: sqlite),
                    Sample(Double(entries.count) / (indexed - start), peer: sqlite),
                ]
            },
            BenchRow(
                id: "pg.append.concurrent", title: "PostgreSQL: 16 threads, 1 record per call (group commit)",
                unit: "records/s", target: .atLeast(10_000)
            ) { context in
                let store = try PostgresStore.openWriter(
                    url: try PostgresWorkload.freshURL(base), environment: "sandbox")
                defer { store.close() }
                let entries = Array(context.workload.entries.prefix(max(1_000, context.options.records / 10)))
                let threads = 16
                let failures = Atomic<Int>(0)
                let start = now()
                runThreads(threads) { thread in
                    for index in stride(from: thread, to: entries.count, by: threads) {
                        do {
                            _ = try store.append(entries[index])
                        } catch {
                            failures.add(1, ordering: .relaxed)
                        }
                    }
                }
                let rate = Double(entries.count) / (now() - start)
                let failed = failures.load(ordering: .relaxed)
                guard failed == 0, store.head.seq == UInt64(entries.count) else {
                    throw BenchError("\(failed) concurrent appends failed; head \(store.head.seq)")
                }
                return rate
            },
            BenchRow(
                id: "pg.rebuild", title: "PostgreSQL: rebuild (re-derive the subject index, read every record)",
                unit: "records/s", target: .atLeast(200_000)
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
                id: "pg.verify", title: "PostgreSQL: verify (read every record, whole hash chain)", unit: "records/s",
                target: .atLeast(200_000)
            ) { context in
                let url = try PostgresWorkload.builtURL(base, context)
                let start = now()
                let store = try PostgresStore.openReader(url: url)
                defer { store.close() }
                let report = try store.verify()
                guard report.ok else { throw BenchError("verify failed: \(report.problem!.message)") }
                return Double(report.headSeq) / (now() - start)
            },
            postgresQueryRow(base, records: queryRecords, label: label),
        ]
    }
}
