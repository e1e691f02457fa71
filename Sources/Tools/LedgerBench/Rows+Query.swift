import LedgerCore
import LedgerService
import LedgerSystem

extension BenchRow {
    /// Point-in-time queries through `Ledger.state(of: .user(id), at: T, knownAt: nil)` on a population of
    /// `records` records, against SQLite answering the same queries from the same records (BLOBs, an index on
    /// the subject, decode, the same fold). Each run asks ``BenchOptions/queries`` random (user, T) pairs.
    static func queryRow(records: Int, label: String) -> BenchRow {
        let p99Target: Target = .atMost(100)
        return BenchRow(
            id: "query-\(label)",
            metrics: [
                Metric(
                    "query-\(label).p50", "point-in-time state of a user, \(label) records: p50", unit: "µs",
                    better: .lower, peer: true),
                Metric(
                    "query-\(label).p99", "point-in-time state of a user, \(label) records: p99", unit: "µs",
                    better: .lower, target: p99Target, peer: true),
                Metric(
                    "query-\(label).cpu.p99", "… p99 of CPU time (the machine's other load left out)", unit: "µs",
                    better: .lower, target: p99Target, peer: true),
                Metric(
                    "query-\(label).records.p50",
                    "↳ of which reading the records (Ledger.foldRecords): p50 of CPU time",
                    unit: "µs",
                    better: .lower),
                Metric("query-\(label).fold.p50", "↳ of which the fold: p50 of CPU time", unit: "µs", better: .lower),
            ]
        ) { context in
            let population = try context.population(records: records)
            let ledger = try context.reader(records: records)
            let peer = try SQLiteQueryPeer(path: population.sqlitePath!, create: false)
            var random = SplitMix64(seed: context.nextSeed())
            let span = UInt64(Population.end.milliseconds - Population.start.milliseconds)
            let queries = (0..<context.options.queries).map { _ in
                (
                    Int64(1 + random.next() % UInt64(population.users)),
                    Population.start.adding(milliseconds: Int64(random.next() % span))
                )
            }
            var ledgerLimits: [Int] = []
            var ledgerTimes: [Double] = []
            var ledgerCPU: [Double] = []
            for (user, at) in queries {
                let (start, cpu) = (now(), cpuNow())
                let state = try ledger.state(of: .user(user), at: at, knownAt: nil)
                ledgerCPU.append(cpuNow() - cpu)
                ledgerTimes.append(now() - start)
                ledgerLimits.append(state.deviceLimit)
            }
            var mismatches = 0
            var peerTimes: [Double] = []
            var peerCPU: [Double] = []
            for (index, (user, at)) in queries.enumerated() {
                let (start, cpu) = (now(), cpuNow())
                let state = try peer.state(of: .user(user), at: at)
                peerCPU.append(cpuNow() - cpu)
                peerTimes.append(now() - start)
                if state.deviceLimit != ledgerLimits[index] { mismatches += 1 }
            }
            var readTimes: [Double] = []
            var foldTimes: [Double] = []
            for (user, at) in queries {
                let start = cpuNow()
                let records = try ledger.foldRecords(for: .user(user))
                let read = cpuNow()
                let state = ledger.fold.state(of: .user(user), records: records, at: at, knownAt: nil)
                foldTimes.append(cpuNow() - read)
                readTimes.append(read - start)
                if state.deviceLimit < 0 { mismatches += 1 }
            }
            guard mismatches == 0 else {
                throw BenchError("SQLite and the ledger disagree on \(mismatches) of \(queries.count) answers")
            }
            return [
                Sample(percentile(ledgerTimes, 0.50) * 1e6, peer: percentile(peerTimes, 0.50) * 1e6),
                Sample(percentile(ledgerTimes, 0.99) * 1e6, peer: percentile(peerTimes, 0.99) * 1e6),
                Sample(percentile(ledgerCPU, 0.99) * 1e6, peer: percentile(peerCPU, 0.99) * 1e6),
                Sample(percentile(readTimes, 0.50) * 1e6), Sample(percentile(foldTimes, 0.50) * 1e6),
            ]
        }
    }
}

/// The `fraction` percentile of `values` (nearest rank).
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}
