import LedgerCrypto
import LedgerLog
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One row of the results table: what is measured, and one run of it (returning the measured rate).
///
/// To add a row, append a `BenchRow` to ``BenchRow/all``; `setUp` runs once, untimed, before the warm-up.
struct BenchRow {
    var id: String
    var title: String
    var unit: String
    var run: (BenchContext) throws -> Double
}

/// Shared state for the rows: options, the workload, a scratch directory, a pre-built log.
final class BenchContext {
    let options: BenchOptions
    let workload: Workload
    let scratch: String
    private var counter = 0
    private var prebuilt: String?

    init(options: BenchOptions) throws {
        self.options = options
        self.workload = Workload(count: options.records)
        var template = Array("\(options.directory)/ledger-bench-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw BenchError("cannot create a scratch directory in \(options.directory)")
        }
        scratch = String(cString: made)
    }

    /// A new, empty path inside the scratch directory.
    func freshPath(_ name: String) -> String {
        counter += 1
        return "\(scratch)/\(name)-\(counter)"
    }

    /// A log holding the whole workload, built once.
    func builtLog() throws -> String {
        if let prebuilt { return prebuilt }
        let path = freshPath("prebuilt")
        let log = try EventLog.openWriter(at: path, environment: "sandbox")
        let entries = workload.entries
        for start in stride(from: 0, to: entries.count, by: 10_000) {
            _ = try log.append(Array(entries[start..<min(start + 10_000, entries.count)]))
        }
        log.close()
        prebuilt = path
        return path
    }

    func remove(_ path: String) { _ = system("rm -rf '\(path)'") }

    deinit { remove(scratch) }
}

/// Seconds on the monotonic clock.
func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

extension BenchRow {
    /// Every row, in the order they run and print.
    static var all: [BenchRow] {
        [
            BenchRow(id: "log.append", title: "ledger: durable append, batched", unit: "records/s") { context in
                let path = context.freshPath("log")
                defer { context.remove(path) }
                let log = try EventLog.openWriter(at: path, environment: "sandbox")
                defer { log.close() }
                let entries = context.workload.entries
                let batch = context.options.batch
                let start = now()
                for first in stride(from: 0, to: entries.count, by: batch) {
                    _ = try log.append(Array(entries[first..<min(first + batch, entries.count)]))
                }
                return Double(entries.count) / (now() - start)
            },
            BenchRow(id: "sqlite.append", title: "SQLite (WAL, synchronous=FULL): same batches", unit: "records/s") {
                context in
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
            },
            BenchRow(
                id: "log.append.concurrent", title: "ledger: 16 threads, 1 record per call (group commit)",
                unit: "records/s"
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
                return Double(entries.count) / (now() - start)
            },
            BenchRow(
                id: "log.open", title: "ledger: open for write (walk + checksums + index files)", unit: "records/s"
            ) {
                context in
                let path = try context.builtLog()
                let start = now()
                let log = try EventLog.openWriter(at: path, environment: "sandbox")
                let rate = Double(log.head.seq) / (now() - start)
                log.close()
                return rate
            },
            BenchRow(
                id: "log.scan", title: "ledger: cold scan (new reader, every record checksummed)", unit: "records/s"
            ) {
                context in
                let path = try context.builtLog()
                let start = now()
                let log = try EventLog.openReader(at: path)
                var count = 0
                var bytes = 0
                try log.forEachView { view, _, _ in
                    count += 1
                    bytes &+= view.payload.count
                }
                let rate = Double(count) / (now() - start)
                log.close()
                return rate
            },
            BenchRow(
                id: "log.rebuild", title: "ledger: rebuild indexes (new reader, full scan, index files ignored)",
                unit: "records/s"
            ) { context in
                let path = try context.builtLog()
                let start = now()
                let log = try EventLog.openReader(at: path)
                try log.rebuildIndexes()
                let rate = Double(log.head.seq) / (now() - start)
                log.close()
                return rate
            },
            BenchRow(id: "crc32c", title: "CRC-32C over 450-byte records", unit: "MB/s") { _ in
                let data = [UInt8](repeating: 0xA5, count: 64 << 20)
                let start = now()
                var crc: UInt32 = 0
                data.withUnsafeBytes { raw in
                    for offset in stride(from: 0, to: raw.count - 450, by: 450) {
                        crc ^= CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + 450)]))
                    }
                }
                let elapsed = now() - start
                if crc == 42 { print("") }
                return Double(data.count) / elapsed / 1e6
            },
            BenchRow(id: "sha256", title: "SHA-256 chain step over 450-byte records", unit: "MB/s") { _ in
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
            },
            BenchRow(id: "log.verify", title: "ledger: verify (checksums + whole hash chain)", unit: "records/s") {
                context in
                let path = try context.builtLog()
                let start = now()
                let report = try EventLog.verify(at: path)
                guard report.ok else { throw BenchError("verify failed: \(report.problem!.message)") }
                return Double(report.headSeq) / (now() - start)
            },
        ]
    }
}
