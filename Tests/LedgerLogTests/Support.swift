import LedgerLog
import LedgerStore
import LedgerSystem
import LedgerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh temporary directory per test, removed when the value goes away.
typealias TempDirectory = TemporaryDirectory

extension TemporaryDirectory {
    /// The data directory inside it.
    var data: String { path + "/data" }
}

/// A realistic entry: a notification UUID key, three subjects, a few hundred payload bytes.
func entry(_ n: Int, payloadSize: Int = 40, time: Int64? = nil) -> LogEntry {
    let payload = (0..<payloadSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) }
    return LogEntry(
        idempotencyKey: "notification-\(n)", subjectKeys: ["user:\(n % 7)", "otid:\(2_000_000 + n % 13)"],
        payload: payload, recordedAt: time)
}

/// A clock that starts at a fixed instant and moves 1 ms per call, for reproducible times.
func steppingClock(from start: Int64 = 1_767_225_600_000) -> @Sendable () -> Int64 {
    let counter = Counter()
    return { start + counter.next() }
}

final class Counter: @unchecked Sendable {
    // Sendable: the value is only touched while holding `lock`.
    private var value: Int64 = 0
    private var lock = pthread_mutex_t()
    init() { pthread_mutex_init(&lock, nil) }
    func next() -> Int64 {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        value += 1
        return value
    }
}

/// The evidence reference of the tests' records: a payload of exactly 32 bytes is the SHA-256 of the evidence
/// it refers to (the evidence tests append such records); other payloads refer to none.
let payloadIsDigest: EvidenceReferenceFinder = { payload in payload.count == 32 ? 0..<32 : nil }

/// Opens a writer for the sandbox environment with a stepping clock (and, unless the options say otherwise,
/// ``payloadIsDigest`` for the records' evidence references).
func openWriter(
    _ dir: String, options: LogOptions = .init(), fileSystem: any FileSystem = PosixFileSystem()
) throws -> EventLog {
    var options = options
    if options.evidenceReferences == nil { options.evidenceReferences = payloadIsDigest }
    return try EventLog.openWriter(
        at: dir, environment: "sandbox", options: options, fileSystem: fileSystem, clock: steppingClock())
}

/// Appends `count` entries one call each, numbered from `start`.
func appendEach(_ log: EventLog, _ range: ClosedRange<Int>, payloadSize: Int = 40) throws {
    for n in range { _ = try log.append(entry(n, payloadSize: payloadSize)) }
}

/// Raw bytes of a file.
func readBytes(_ path: String) -> [UInt8] {
    (try? PosixFileSystem().readFile(path)) ?? []
}

/// Overwrites a file with bytes.
func writeBytes(_ path: String, _ bytes: [UInt8]) {
    let fs = PosixFileSystem()
    let fd = try! fs.open(path, OpenOptions(access: .writeOnly, create: true, truncate: true))
    try! fs.writeAll(fd, bytes, at: 0)
    try! fs.close(fd)
}

/// The single segment file of a small log.
func segmentPaths(_ dir: String) -> [String] {
    let names = (try? PosixFileSystem().readDirectory(dir + "/log")) ?? []
    return names.filter { $0.hasSuffix(".seg") }.sorted().map { dir + "/log/" + $0 }
}

/// Every record of a log, read by a fresh reader.
func allRecords(_ dir: String) throws -> [LogRecord] {
    let reader = try EventLog.openReader(at: dir)
    defer { reader.close() }
    var records: [LogRecord] = []
    try reader.forEach { records.append($0) }
    return records
}
