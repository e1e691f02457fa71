import LedgerCrypto
import LedgerService
import LedgerSystem

extension BenchRow {
    /// Verified ingest of distinct signed notifications with a warm chain cache: `IngestPipeline.prepare`
    /// (verification and mapping) on one thread, and the whole ingest as `ledger ingest` runs it
    /// (`IngestPipeline.ingest(batches:)`: each batch of 2,048 verified on every core while the one before it is
    /// appended durably in one group commit, evidence included). The two split rows run the same stages one
    /// after the other, on another fresh log, to show what each costs.
    static var ingestRow: BenchRow {
        let cores = Double(onlineProcessorCount)
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
                    "ingest.bound",
                    "… the bound: 3 ES256 verifications (envelope, transaction, renewal) with the key's"
                        + " table, per second of CPU time", unit: "notifications/s", better: .higher),
                Metric(
                    "ingest.whole", "verified ingest, whole (verify on \(Int(cores)) threads + durable append)",
                    unit: "notifications/s", better: .higher, target: .atLeast(5_000 * cores)),
                Metric(
                    "ingest.whole.cpu",
                    "… per second of the process's CPU time (all its threads; per core, the machine's other load left"
                        + " out)", unit: "notifications/s", better: .higher, target: .atLeast(5_000)),
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

            // Each stage gets a pipeline on a fresh log, closed and removed when the run ends.
            var opened: [(ledger: Ledger, path: String)] = []
            defer {
                for (ledger, path) in opened {
                    ledger.close()
                    context.remove(path)
                }
            }
            func freshPipeline(_ name: String) throws -> IngestPipeline {
                let path = context.freshPath(name)
                let ledger = try Ledger.openWriter(at: path, environment: input.environment)
                opened.append((ledger, path))
                return IngestPipeline(
                    ledger: ledger, verifier: input.verifier, quarantine: Quarantine(dataDirectory: path))
            }

            let preparer = try freshPipeline("ingest-prepare")
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

            let bound = try threeVerificationsPerCPUSecond()

            let pipeline = try freshPipeline("ingest")
            start = now()
            let processCPU = processCPUNow()
            var appended = 0
            let batches = stride(from: 0, to: bodies.count, by: 2_048).lazy.map { first in
                Array(bodies[first..<min(first + 2_048, bodies.count)])
            }
            try pipeline.ingest(batches: batches, threads: onlineProcessorCount) { results in
                for result in results { if case .appended = result { appended += 1 } }
            }
            let whole = Double(bodies.count) / (now() - start)
            let wholeCPU = Double(bodies.count) / (processCPUNow() - processCPU)
            guard appended == bodies.count else {
                throw BenchError("only \(appended) of \(bodies.count) distinct notifications were appended")
            }

            // The two stages apart, one after the other, on another fresh log.
            let splitPipeline = try freshPipeline("ingest-split")
            var verifying = 0.0
            var committing = 0.0
            for batch in batches {
                let verifyStart = now()
                let prepared = splitPipeline.prepare(bodies: batch, threads: onlineProcessorCount)
                let commitStart = now()
                _ = try splitPipeline.commit(prepared, bodies: batch)
                committing += now() - commitStart
                verifying += commitStart - verifyStart
            }
            let verify = Double(bodies.count) / verifying
            let commit = Double(bodies.count) / committing
            return [
                Sample(prepare), Sample(prepareCPU), Sample(bound), Sample(whole), Sample(wholeCPU), Sample(verify),
                Sample(commit),
            ]
        }
    }

    /// What verification alone allows: notifications per CPU-second of one thread when each costs exactly three
    /// ES256 verifications by one warm P-256 key (its table of multiples built, as the leaf key of every
    /// notification from one signer is), over distinct digests.
    static func threeVerificationsPerCPUSecond() throws -> Double {
        let key = try ECPrivateKey(generating: .p256)
        let signed = try (0..<256).map { index throws -> (digest: [UInt8], signature: ECDSASignature) in
            var hasher = SHA256()
            hasher.update(Array("notification \(index)".utf8))
            let digest = hasher.finalize()
            return (digest, try key.signature(forDigest: digest))
        }
        for (digest, signature) in signed where !key.publicKey.isValidSignature(signature, forDigest: digest) {
            throw BenchError("a signature made by the bench's own key does not verify")
        }
        let notifications = 2_000
        let start = cpuNow()
        var valid = 0
        for index in 0..<(3 * notifications) {
            let (digest, signature) = signed[index % signed.count]
            if key.publicKey.isValidSignature(signature, forDigest: digest) { valid += 1 }
        }
        let elapsed = cpuNow() - start
        guard valid == 3 * notifications else { throw BenchError("\(3 * notifications - valid) verifications failed") }
        return Double(notifications) / elapsed
    }
}
