import LedgerCrypto
import LedgerLog
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

extension BenchRow {
    /// The log engine's rows, over the synthetic workload (``Workload``): appends against SQLite, group commit,
    /// open, scan, index rebuild, verify, and the checksum and hash primitives.
    static var logRows: [BenchRow] {
        [
            BenchRow(
                id: "append",
                metrics: [
                    Metric(
                        "append", "durable append, batches of N (SQLite: WAL, synchronous=FULL, same batches)",
                        unit: "records/s", better: .higher, target: .atLeast(500_000), peer: true)
                ]
            ) { context in
                [Sample(try appendLog(context), peer: try appendSQLite(context))]
            },
            BenchRow(
                id: "group-commit",
                metrics: [
                    Metric(
                        "group-commit", "durable append, 16 threads × 1 record per call (group commit)",
                        unit: "records/s", better: .higher)
                ]
            ) { context in
                let path = context.freshPath("log")
                defer { context.remove(path) }
                let log = try EventLog.openWriter(at: path, environment: "sandbox")
                defer { log.close() }
                let entries = Array(context.workload.entries.prefix(max(1_000, context.options.records / 10)))
                let threads = 16
                let start = now()
                runThreads(threads) { thread in
                    for index in stride(from: thread, to: entries.count, by: threads) {
                        _ = try? log.append(entries[index])
                    }
                }
                return [Sample(Double(entries.count) / (now() - start))]
            },
            BenchRow(
                id: "open",
                metrics: [
                    Metric(
                        "open", "open for write (walk + checksums + index files)", unit: "records/s", better: .higher)
                ]
            ) { context in
                let path = try context.builtLog()
                let start = now()
                let log = try EventLog.openWriter(at: path, environment: "sandbox")
                let rate = Double(log.head.seq) / (now() - start)
                log.close()
                return [Sample(rate)]
            },
            BenchRow(
                id: "index-rebuild",
                metrics: [
                    Metric(
                        "index-rebuild", "rebuild indexes (new reader, full scan, index files ignored)",
                        unit: "records/s", better: .higher)
                ]
            ) { context in
                let path = try context.builtLog()
                let start = now()
                let log = try EventLog.openReader(at: path)
                try log.rebuildIndexes()
                let rate = Double(log.head.seq) / (now() - start)
                log.close()
                return [Sample(rate)]
            },
            BenchRow(
                id: "verify",
                metrics: [
                    Metric("verify", "verify (checksums + whole hash chain)", unit: "records/s", better: .higher)
                ]
            ) { context in
                let path = try context.builtLog()
                let start = now()
                let report = try EventLog.verify(at: path)
                guard report.ok else { throw BenchError("verify failed: \(report.problem!.message)") }
                return [Sample(Double(report.headSeq) / (now() - start))]
            },
            BenchRow(
                id: "primitives",
                metrics: [
                    Metric("crc32c", "CRC-32C over 450-byte records", unit: "MB/s", better: .higher),
                    Metric("sha256", "SHA-256 chain step over 450-byte records", unit: "MB/s", better: .higher),
                    Metric(
                        "ecdsa.libcrypto", "ES256 verification, libcrypto's ECDSA_verify, per CPU-second",
                        unit: "verifications/s", better: .higher),
                    Metric(
                        "ecdsa.table", "ES256 verification with the key's table of multiples, per CPU-second",
                        unit: "verifications/s", better: .higher),
                ]
            ) { _ in
                let (libcrypto, table) = try ecdsaRates()
                return [Sample(crc32cRate()), Sample(sha256Rate()), Sample(libcrypto), Sample(table)]
            },
        ]
    }

    private static func appendLog(_ context: BenchContext) throws -> Double {
        let path = context.freshPath("log")
        defer { context.remove(path) }
        let log = try EventLog.openWriter(at: path, environment: "sandbox")
        defer { log.close() }
        let entries = context.workload.entries
        // The batches as arrays before the clock starts, as a caller holds them (the SQLite peer takes slices).
        let batch = context.options.batch
        let batches = stride(from: 0, to: entries.count, by: batch).map {
            Array(entries[$0..<min($0 + batch, entries.count)])
        }
        let start = now()
        for records in batches { _ = try log.append(records) }
        return Double(entries.count) / (now() - start)
    }

    static func appendSQLite(_ context: BenchContext) throws -> Double {
        let path = context.freshPath("sqlite")
        defer { context.remove(path) }
        _ = mkdir(path, 0o755)
        let peer = try SQLitePeer(path: path + "/ledger.sqlite")
        let entries = context.workload.entries
        let batch = context.options.batch
        let start = now()
        for first in stride(from: 0, to: entries.count, by: batch) {
            try peer.append(entries[first..<min(first + batch, entries.count)], time: 1_767_225_600_000)
        }
        return Double(entries.count) / (now() - start)
    }

    private static func crc32cRate() -> Double {
        let data = [UInt8](repeating: 0xA5, count: 64 << 20)
        let start = now()
        var crc: UInt32 = 0
        data.withUnsafeBytes { raw in
            for offset in stride(from: 0, to: raw.count - 450, by: 450) {
                crc ^= CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + 450)]))
            }
        }
        let elapsed = now() - start
        if crc == 42 { print("") }  // keeps the loop
        return Double(data.count) / elapsed / 1e6
    }

    /// Verifications per CPU-second of one P-256 key's signatures: through libcrypto's `ECDSA_verify` (the DER
    /// path, which never uses the table), and through the raw path once the key has built its table of multiples.
    private static func ecdsaRates() throws -> (libcrypto: Double, table: Double) {
        let key = try ECPrivateKey(generating: .p256)
        let digests = (0..<64).map { SHA256.hash(Array("ecdsa \($0)".utf8)) }
        let signatures = try digests.map { try key.signature(forDigest: $0) }
        let ders = signatures.map(\.derRepresentation)
        let rounds = 2_000
        var valid = 0
        var start = cpuNow()
        for round in 0..<rounds
        where key.publicKey.isValidSignature(derSignature: ders[round % 64], forDigest: digests[round % 64]) {
            valid += 1
        }
        let libcrypto = Double(rounds) / (cpuNow() - start)
        for round in 0..<64 where key.publicKey.isValidSignature(signatures[round], forDigest: digests[round]) {
            valid += 1  // builds the table
        }
        start = cpuNow()
        for round in 0..<rounds
        where key.publicKey.isValidSignature(signatures[round % 64], forDigest: digests[round % 64]) {
            valid += 1
        }
        let table = Double(rounds) / (cpuNow() - start)
        guard valid == 2 * rounds + 64 else { throw BenchError("a valid ES256 signature failed to verify") }
        return (libcrypto, table)
    }

    private static func sha256Rate() -> Double {
        let data = [UInt8](repeating: 0xA5, count: 64 << 20)
        let start = now()
        var previous = [UInt8](repeating: 0, count: 32)
        data.withUnsafeBytes { raw in
            for offset in stride(from: 0, to: raw.count - 450, by: 450) {
                var hasher = SHA256()
                hasher.update(previous)
                hasher.update(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + 450)]))
                previous = hasher.finalize()
            }
        }
        return Double(data.count) / (now() - start) / 1e6
    }
}
