import LedgerCore
import LedgerPostgres
import LedgerService
import LedgerSystem

extension BenchRow {
    /// Start-up and point-in-time queries on PostgreSQL, over a copy of the query row's realistic population of
    /// `records` records: how long a process takes from opening the store (as `ledger serve --store` does) to its
    /// first answer, and the p99 of the same random `Ledger.state(of: .user(id), at: T, knownAt: nil)` queries on
    /// PostgreSQL and on the file log, asked in the same run.
    static func postgresQueryRow(_ base: String, records: Int, label: String) -> BenchRow {
        BenchRow(
            id: "pg.query-\(label)",
            metrics: [
                Metric(
                    "pg.query-\(label).startup",
                    "PostgreSQL, \(label) records: open the store and answer the first point-in-time query",
                    unit: "s", better: .lower, target: .atMost(10)),
                Metric(
                    "pg.query-\(label).p50", "PostgreSQL: point-in-time state of a user, \(label) records: p50",
                    unit: "µs", better: .lower),
                Metric(
                    "pg.query-\(label).p99", "PostgreSQL: point-in-time state of a user, \(label) records: p99",
                    unit: "µs", better: .lower),
                Metric(
                    "pg.query-\(label).vs-file.p99", "↳ p99 ÷ the file log's p99 on the same queries (same run)",
                    unit: "ratio", better: .lower, target: .atMost(3)),
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
            let store = try PostgresStore.openWriter(url: url, environment: LedgerEnvironment.production.rawValue)
            defer { store.close() }
            let ledger = Ledger(log: store)
            let first = try ledger.state(of: .user(queries[0].0), at: queries[0].1, knownAt: nil)
            let startup = now() - started
            guard
                first.deviceLimit
                    == (try file.state(of: .user(queries[0].0), at: queries[0].1, knownAt: nil)).deviceLimit
            else { throw BenchError("PostgreSQL and the file log disagree on the first answer") }
            var postgresTimes: [Double] = []
            var fileTimes: [Double] = []
            var mismatches = 0
            for (user, at) in queries {
                var start = now()
                let answer = try ledger.state(of: .user(user), at: at, knownAt: nil)
                postgresTimes.append(now() - start)
                start = now()
                let expected = try file.state(of: .user(user), at: at, knownAt: nil)
                fileTimes.append(now() - start)
                if answer.deviceLimit != expected.deviceLimit { mismatches += 1 }
            }
            guard mismatches == 0 else {
                throw BenchError("PostgreSQL and the file log disagree on \(mismatches) of \(queries.count) answers")
            }
            let p99 = percentile(postgresTimes, 0.99)
            return [
                Sample(startup), Sample(percentile(postgresTimes, 0.50) * 1e6), Sample(p99 * 1e6),
                Sample(p99 / max(percentile(fileTimes, 0.99), 1e-9)),
            ]
        }
    }
}
