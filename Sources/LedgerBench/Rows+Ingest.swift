import LedgerService
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

extension BenchRow {
    /// Verified ingest of distinct signed notifications with a warm chain cache: `IngestPipeline.prepare`
    /// (verification and mapping) on one thread, and the whole ingest as `ledger ingest` runs it (verification
    /// spread over every core, each batch of 2,048 appended durably in one group commit, evidence included).
    static var ingestRow: BenchRow {
        let cores = Double(processorCount)
        return BenchRow(
            id: "ingest",
            metrics: [
                Metric(
                    "ingest.prepare", "verified ingest, prepare only (verify + map), 1 thread", unit: "notifications/s",
                    better: .higher, target: .atLeast(5_000)),
                Metric(
                    "ingest.prepare.cpu", "… per second of CPU time (the machine's other load left out)",
                    unit: "notifications/s", better: .higher, target: .atLeast(5_000)),
                Metric(
                    "ingest.whole", "verified ingest, whole (verify on \(Int(cores)) threads + durable append)",
                    unit: "notifications/s", better: .higher, target: .atLeast(5_000 * cores)),
                Metric(
                    "ingest.verify", "… of which verification on \(Int(cores)) threads", unit: "notifications/s",
                    better: .higher),
                Metric(
                    "ingest.commit", "… of which the durable commit (evidence pack + records)",
                    unit: "notifications/s", better: .higher),
            ]
        ) { context in
            let input = try context.ingestInput()
            let run = context.nextSeed()
            let bodies = Array(input.slice(run: Int(run), runs: context.options.runs + 1, limit: 5_000))

            let scratch = context.freshPath("ingest-prepare")
            defer { context.remove(scratch) }
            let idle = try Ledger.openWriter(at: scratch, environment: input.environment)
            defer { idle.log.close() }
            let preparer = IngestPipeline(
                ledger: idle, verifier: input.verifier, quarantine: Quarantine(dataDirectory: scratch))
            var start = now()
            let cpu = cpuNow()
            var mapped = 0
            for body in bodies {
                if case .record = preparer.prepare(body: body) { mapped += 1 }
            }
            let prepareCPU = Double(bodies.count) / (cpuNow() - cpu)
            let prepare = Double(bodies.count) / (now() - start)
            guard mapped == bodies.count else {
                throw BenchError("\(bodies.count - mapped) of \(bodies.count) simulated notifications were rejected")
            }

            let path = context.freshPath("ingest")
            defer { context.remove(path) }
            let ledger = try Ledger.openWriter(at: path, environment: input.environment)
            defer { ledger.log.close() }
            let pipeline = IngestPipeline(
                ledger: ledger, verifier: input.verifier, quarantine: Quarantine(dataDirectory: path))
            start = now()
            var appended = 0
            var committing = 0.0
            for first in stride(from: 0, to: bodies.count, by: 2_048) {
                let batch = Array(bodies[first..<min(first + 2_048, bodies.count)])
                let prepared = prepareInParallel(batch, pipeline, threads: processorCount)
                let commitStart = now()
                for result in try pipeline.commit(prepared, bodies: batch) {
                    if case .appended = result { appended += 1 }
                }
                committing += now() - commitStart
            }
            let elapsed = now() - start
            let whole = Double(bodies.count) / elapsed
            let verify = Double(bodies.count) / (elapsed - committing)
            let commit = Double(bodies.count) / committing
            guard appended == bodies.count else {
                throw BenchError("only \(appended) of \(bodies.count) distinct notifications were appended")
            }
            return [Sample(prepare), Sample(prepareCPU), Sample(whole), Sample(verify), Sample(commit)]
        }
    }

    /// `pipeline.prepare` over a batch on `threads` threads, results in input order.
    private static func prepareInParallel(_ bodies: [[UInt8]], _ pipeline: IngestPipeline, threads: Int)
        -> [IngestPipeline.Prepared]
    {
        let slots = ResultSlots<IngestPipeline.Prepared>(count: bodies.count)
        runThreads(threads) { thread in
            for index in stride(from: thread, to: bodies.count, by: threads) {
                slots.set(index, pipeline.prepare(body: bodies[index]))
            }
        }
        return slots.values().map { $0! }
    }
}

/// Online processors (at least 1).
var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
