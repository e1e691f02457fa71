import LedgerCore
import LedgerPostgres
import LedgerService
import LedgerSystem

extension BenchRow {
    /// Start-up and point-in-time queries on PostgreSQL, over a copy of the query row's realistic population of
    /// `records` records: how long a process takes from opening the store (as `ledger serve --store` does) to its
    /// first answer, and the p50 and p99 of the same random `Ledger.state(of: .user(id), at: T, knownAt: nil)`
    /// queries on the file log and on PostgreSQL, asked in the same run twice: with the in-memory copy of the
    /// records that `ledger serve` keeps (``PostgresStore/awaitReplica(seconds:)``), and reading the database.
    static func postgresQueryRow(_ base: String, records: Int, label: String) -> BenchRow {
        BenchRow(
            id: "pg.query-\(label)",
            metrics: [
                Metric(
                    "pg.query-\(label).startup",
                    "PostgreSQL, \(label) records: open the store and answer the first point-in-time query",
                    unit: "s", better: .lower, target: .atMost(10)),
                Metric(
                    "pg.query-\(label).replica-load",
                    "↳ then copy the records into memory (reads go to the database meanwhile)", unit: "s",
                    better: .lower),
                Metric(
                    "pg.query-\(label).p50", "PostgreSQL: point-in-time state of a user, \(label) records: p50",
                    unit: "µs", better: .lower),
                Metric(
                    "pg.query-\(label).p99", "PostgreSQL: point-in-time state of a user, \(label) records: p99",
                    unit: "µs", better: .lower),
                Metric(
                    "pg.query-\(label).vs-file.p99", "↳ p99 ÷ the file log's p99 on the same queries (same run)",
                    unit: "ratio", better: .lower, target: .atMost(3)),
                Metric(
                    "pg.query-\(label).database.p99",
                    "↳ p99 without the in-memory copy (every read a query of the database)", unit: "µs",
                    better: .lower),
            ]
        ) { context in
            let url = try PostgresWorkload.populationURL(base, context, records: records)
            let population = try context.population(records: records)
            let file = try context.reader(records: records)
            var random = SplitMix64(seed: context.nextSeed())
            let span = UInt64(Population.end.milliseconds - Population.start.milliseconds)
            let queries = (0..<context.options.queries).map { _ in
                (
                    Int64(1 + random.next() % UInt64(population.users)),
                    Population.start.adding(milliseconds: Int64(random.next() % span))
                )
            }
            let started = now()
            let store = try PostgresStore.openWriter(
                url: url, environment: LedgerEnvironment.production.rawValue, replicaLimit: 4 << 30)
            defer { store.close() }
            let ledger = Ledger(log: store)
            let first = try ledger.state(of: .user(queries[0].0), at: queries[0].1, knownAt: nil)
            let startup = now() - started
            guard
                first.deviceLimit
                    == (try file.state(of: .user(queries[0].0), at: queries[0].1, knownAt: nil)).deviceLimit
            else { throw BenchError("PostgreSQL and the file log disagree on the first answer") }
            guard store.awaitReplica(seconds: 300) else {
                throw BenchError("the in-memory copy of the PostgreSQL records did not load")
            }
            let loaded = now() - started
            let direct = try PostgresStore.openReader(url: url)
            defer { direct.close() }
            let databaseLedger = Ledger(log: direct)
            var memory = QueryTimes()
            var database = QueryTimes()
            var fileTimes: [Double] = []
            for (user, at) in queries {
                var start = now()
                let expected = try file.state(of: .user(user), at: at, knownAt: nil).deviceLimit
                fileTimes.append(now() - start)
                start = now()
                let inMemory = try ledger.state(of: .user(user), at: at, knownAt: nil).deviceLimit
                memory.add(now() - start, inMemory, expected)
                start = now()
                let answer = try databaseLedger.state(of: .user(user), at: at, knownAt: nil).deviceLimit
                database.add(now() - start, answer, expected)
            }
            guard memory.mismatches == 0, database.mismatches == 0 else {
                throw BenchError(
                    "PostgreSQL and the file log disagree on \(memory.mismatches) (in memory) and "
                        + "\(database.mismatches) (database) of \(queries.count) answers")
            }
            let p99 = percentile(memory.times, 0.99)
            return [
                Sample(startup), Sample(loaded - startup), Sample(percentile(memory.times, 0.50) * 1e6),
                Sample(p99 * 1e6), Sample(p99 / max(percentile(fileTimes, 0.99), 1e-9)),
                Sample(percentile(database.times, 0.99) * 1e6),
            ]
        }
    }
}

/// The times of one store's answers, and how many differed from the file log's.
private struct QueryTimes {
    var times: [Double] = []
    var mismatches = 0

    mutating func add(_ seconds: Double, _ answer: Int, _ expected: Int) {
        times.append(seconds)
        if answer != expected { mismatches += 1 }
    }
}
