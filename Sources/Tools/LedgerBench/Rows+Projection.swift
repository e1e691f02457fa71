import LedgerCore
import LedgerLog
import LedgerService
import LedgerSystem
import Synchronization

extension BenchRow {
    /// The instant projections are computed at: 2026-01-01, when most of the population is subscribed.
    static let projectionInstant = Instant(milliseconds: 1_767_225_600_000)

    /// Cold rebuild of the projections from a population's log (a new reader each run; the OS page cache is
    /// warm), and the raw scan beneath it; SQLite does the same work from its copy.
    static func rebuildRow(records: Int, label: String) -> BenchRow {
        BenchRow(
            id: "rebuild-\(label)",
            metrics: [
                Metric(
                    "rebuild", "cold rebuild of every projection (Ledger.rebuildProjections), \(label) records",
                    unit: "records/s", better: .higher, target: .atLeast(3_000_000), peer: true),
                Metric(
                    "rebuild.open",
                    "↳ of which opening the reader (the positions checkpoint checked, the records after it walked)",
                    unit: "ms", better: .lower),
                Metric(
                    "rebuild.fold", "↳ of which the rebuild after the open (read, group, decode and fold on 2 threads)",
                    unit: "ms", better: .lower),
                Metric(
                    "rebuild.foldOnly",
                    "↳ the fold alone, 2 threads (every component decoded beforehand): the bound no encoding lifts",
                    unit: "records/s", better: .higher),
                Metric(
                    "scan", "raw scan, every checksum checked, \(label) records", unit: "records/s",
                    better: .higher, target: .atLeast(3_000_000), peer: true),
                Metric(
                    "rebuild.components", "↳ grouping records into components (Ledger.components)",
                    unit: "records/s", better: .higher),
                Metric(
                    "rebuild.decode", "↳ raw scan + decoding every record whole (LedgerRecord), 1 thread",
                    unit: "records/s", better: .higher),
                Metric(
                    "rebuild.facts", "↳ raw scan + decoding every record for the fold (FoldRecords), 1 thread",
                    unit: "records/s", better: .higher),
            ]
        ) { context in
            let population = try context.population(records: records)
            var start = now()
            let ledger = try Ledger.openReader(at: population.path)
            let opened = now()
            let summary = try ledger.rebuildProjections(at: projectionInstant)
            let finished = now()
            let rebuild = Double(population.records) / (finished - start)
            let (openMillis, foldMillis) = ((opened - start) * 1e3, (finished - opened) * 1e3)
            ledger.close()

            let peer = try SQLiteQueryPeer(path: population.sqlitePath!, create: false)
            start = now()
            let peerSummary = try peer.rebuild(at: projectionInstant)
            let peerRebuild = Double(population.records) / (now() - start)
            guard peerSummary.devices == summary.devicesUnderContract, peerSummary.users == summary.users else {
                throw BenchError(
                    "SQLite's rebuild (\(peerSummary)) disagrees with the ledger's (\(summary.users) users, "
                        + "\(summary.devicesUnderContract) devices)")
            }

            start = now()
            let log = try EventLog.openReader(at: population.path)
            var count = 0
            var bytes = 0
            try log.forEachView { view, _, _ in
                count += 1
                bytes &+= view.payload.count
            }
            let scan = Double(count) / (now() - start)
            log.close()
            start = now()
            let peerCount = try peer.scan()
            let peerScan = Double(peerCount) / (now() - start)

            let reader = try Ledger.openReader(at: population.path)
            defer { reader.close() }
            start = now()
            let components = try reader.components()
            let grouping = Double(population.records) / (now() - start)
            guard components.reduce(0, { $0 + $1.count }) == population.records else {
                throw BenchError("the components do not cover every record")
            }
            let scanner = try EventLog.openReader(at: population.path)
            defer { scanner.close() }
            start = now()
            var decoded = 0
            try scanner.forEachView { view, _, _ in
                let record = try LedgerRecord(decoding: view.payload)
                if record.environment == .production { decoded += 1 }
            }
            let decoding = Double(decoded) / (now() - start)
            start = now()
            var facts = 0
            var batch = FoldRecords()
            try scanner.forEachView { view, _, _ in
                if batch.count == 64 {
                    facts += batch.count
                    batch.removeAll()
                }
                try batch.append(
                    seq: view.seq, recordedAt: Instant(milliseconds: view.recordedAt), payload: view.payload)
            }
            facts += batch.count
            let factDecoding = Double(facts) / (now() - start)
            guard facts == population.records else { throw BenchError("the fold's decoding missed records") }
            let foldOnly = try foldAlone(reader, records: population.records, devices: summary.devicesUnderContract)
            return [
                Sample(rebuild, peer: peerRebuild), Sample(openMillis), Sample(foldMillis), Sample(foldOnly),
                Sample(scan, peer: peerScan), Sample(grouping), Sample(decoding), Sample(factDecoding),
            ]
        }
    }

    /// The rebuild's fold on its own: every component decoded into a ``FoldRecords`` batch first (not timed), then
    /// folded on two threads as ``Ledger/rebuildProjections(at:progress:)`` folds them; records per second. No
    /// record encoding or reading can make the rebuild faster than this. Checked against the rebuild's devices.
    private static func foldAlone(_ reader: Ledger, records: Int, devices: Int) throws -> Double {
        var batches: [FoldRecords] = []
        try reader.forEachComponent { entries in
            var batch = FoldRecords()
            for entry in entries { batch.append(entry) }
            batches.append(batch)
        }
        let fold = reader.fold
        let decoded = batches
        let sums = Mutex([Int](repeating: 0, count: 2))
        let start = now()
        runThreads(2) { thread in
            var devices = 0
            for index in stride(from: thread, to: decoded.count, by: 2) {
                for owned in fold.subscriptions(in: decoded[index], at: projectionInstant, knownAt: nil)
                where owned.state.status.isEntitled {
                    devices += owned.state.devices
                }
            }
            sums.withLock { $0[thread] = devices }
        }
        let rate = Double(records) / (now() - start)
        let folded = sums.withLock { $0.reduce(0, +) }
        guard folded == devices else {
            throw BenchError("the fold alone counts \(folded) devices, the rebuild \(devices)")
        }
        return rate
    }

    /// The resident memory of the in-memory projection that answers "device limit now" for every user
    /// (``ProjectionTable``), built from a population's log: VmRSS after minus before (after `malloc_trim`),
    /// VmHWM during the build minus before, and the table's own array bytes, each divided by its users.
    static func memoryRow(records: Int, label: String) -> BenchRow {
        BenchRow(
            id: "memory-\(label)",
            metrics: [
                Metric(
                    "memory-\(label).resident", "projection for every user, resident (VmRSS delta), \(label) records",
                    unit: "bytes/user", better: .lower, target: .atMost(300)),
                Metric(
                    "memory-\(label).arrays", "projection for every user, its arrays' bytes, \(label) records",
                    unit: "bytes/user",
                    better: .lower, target: .atMost(300)),
                Metric(
                    "memory-\(label).peak", "projection build, peak (VmHWM delta), \(label) records",
                    unit: "bytes/user", better: .lower),
                Metric(
                    "memory-\(label).build", "projection build (fold of every component), \(label) records",
                    unit: "records/s",
                    better: .higher),
            ]
        ) { context in
            let population = try context.population(records: records)
            let ledger = try Ledger.openReader(at: population.path)
            defer { ledger.close() }
            let before = MemoryProbe.trimmedResidentKiB()
            let resetPeak = MemoryProbe.resetPeak()
            let start = now()
            let table = try ledger.projectionTable(at: projectionInstant)
            let elapsed = now() - start
            let peak = MemoryProbe.peakKiB()
            let after = MemoryProbe.trimmedResidentKiB()
            let users = Double(max(1, table.count))
            try checkTable(table, against: ledger, users: population.users, context: context)
            let result = [
                Sample(Double(after - before) * 1024 / users),
                Sample(Double(table.memoryBytes) / users),
                Sample(resetPeak ? Double(peak - before) * 1024 / users : .nan),
                Sample(Double(population.records) / elapsed),
            ]
            withExtendedLifetime(table) {}
            return result
        }
    }

    /// Checks the table against the fold for a few hundred random users.
    private static func checkTable(_ table: ProjectionTable, against ledger: Ledger, users: Int, context: BenchContext)
        throws
    {
        var random = SplitMix64(seed: context.nextSeed())
        for _ in 0..<300 {
            let user = Int64(1 + random.next() % UInt64(users))
            let state = try ledger.state(of: .user(user), at: projectionInstant, knownAt: nil)
            guard let entry = table.lookup(user: user, at: projectionInstant),
                entry.deviceLimit == state.deviceLimit, entry.status == state.status
            else {
                throw BenchError("the projection table disagrees with the fold for user \(user)")
            }
        }
    }
}
