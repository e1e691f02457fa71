import LedgerLog
import LedgerPostgres
import LedgerStore
import LedgerSystem
import LedgerTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A store under test and what the conformance suite needs to do around it: open handles as new processes
/// would, crash a writer, and alter records behind the store's back.
protocol StoreHarness: AnyObject, Sendable {
    /// For messages.
    var name: String { get }
    /// How many writer handles may append at once (the file log: one, it holds the directory's lock).
    var concurrentWriters: Int { get }
    /// Opens a new writer handle.
    func openWriter(environment: String?, clock: @escaping @Sendable () -> Int64) throws -> any RecordStore
    /// Opens a new writer handle that writes for `app`.
    func openWriter(environment: String?, app: AppIdentity?) throws -> any RecordStore
    /// Opens a new reader handle.
    func openReader() throws -> any RecordStore
    /// Makes a writer die in the middle of appending `entries` (after everything it acknowledged before), the way
    /// a killed process would; `store` is unusable afterwards.
    func crashDuringAppend(_ store: any RecordStore, _ entries: [LogEntry]) throws
    /// Changes record `seq`'s payload without going through the store (an attacker with write access).
    func tamper(seq: UInt64) throws
    /// Checks the whole chain as `ledger verify` does, reading every payload with `readRecord` when given.
    func verify(expectHead: [UInt8]?, readRecord: RecordReader?) throws -> VerifyReport
}

extension StoreHarness {
    /// Checks the whole chain as `ledger verify` does.
    func verify(expectHead: [UInt8]?) throws -> VerifyReport { try verify(expectHead: expectHead, readRecord: nil) }

    /// A writer for the sandbox environment with a clock stepping 1 ms per record from 2026-01-01.
    func openWriter() throws -> any RecordStore {
        try openWriter(environment: "sandbox", clock: steppingClock())
    }
}

/// The file log in a temporary directory.
final class FileHarness: StoreHarness {
    let directory = TemporaryDirectory(prefix: "ledger-conformance")
    var data: String { directory.path + "/data" }
    let name = "file log"
    let concurrentWriters = 1

    func openWriter(environment: String?, clock: @escaping @Sendable () -> Int64) throws -> any RecordStore {
        try EventLog.openWriter(at: data, environment: environment, clock: clock)
    }

    func openWriter(environment: String?, app: AppIdentity?) throws -> any RecordStore {
        try EventLog.openWriter(at: data, environment: environment, app: app, clock: steppingClock())
    }

    func openReader() throws -> any RecordStore {
        try EventLog.openReader(at: data)
    }

    /// The process dies while its batch is half written: the segment ends in a torn frame.
    func crashDuringAppend(_ store: any RecordStore, _ entries: [LogEntry]) throws {
        store.close()
        let segment = try lastSegment()
        let fs = PosixFileSystem()
        let fd = try fs.open(segment, OpenOptions(access: .writeOnly))
        let size = try fs.stat(segment)!.size
        // A frame header announcing a 400-byte body, and only part of the body.
        var torn: [UInt8] = [0x90, 0x01, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF, 1, 0]
        torn += [UInt8](repeating: 0x5A, count: 120)
        try fs.writeAll(fd, torn, at: size)
        try fs.fsync(fd)
        try fs.close(fd)
    }

    func tamper(seq: UInt64) throws {
        let reader = try EventLog.openReader(at: data)
        let record = try reader.record(seq: seq)
        reader.close()
        let segment = data + "/log/" + record.segment
        let fs = PosixFileSystem()
        var bytes = try fs.readFile(segment)!
        // The payload ends before the 32-byte hash; flip its last byte, then fix the frame's CRC-32C as a careful
        // attacker would, so only the chain can tell.
        let start = Int(record.offset)
        let bodyLength =
            Int(bytes[start]) | Int(bytes[start + 1]) << 8 | Int(bytes[start + 2]) << 16
            | Int(bytes[start + 3]) << 24
        let bodyEnd = start + 8 + bodyLength
        bytes[bodyEnd - 33] ^= 0xFF
        let crc = CRC32C.checksum(bytes[start..<(start + 4)] + bytes[(start + 8)..<bodyEnd])
        for index in 0..<4 { bytes[start + 4 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
        try fs.writeFileDurably(segment, bytes)
    }

    func verify(expectHead: [UInt8]?, readRecord: RecordReader?) throws -> VerifyReport {
        try EventLog.verify(at: data, expectHead: expectHead, readRecord: readRecord)
    }

    private func lastSegment() throws -> String {
        let names = try PosixFileSystem().readDirectory(data + "/log").filter { $0.hasSuffix(".seg") }.sorted()
        return data + "/log/" + names.last!
    }
}

/// A schema of its own in the database `$LEDGER_TEST_POSTGRES` names, dropped afterwards.
final class PostgresHarness: StoreHarness {
    /// The server's connection string, when the PostgreSQL half of the suite runs.
    static let baseURL: String? = {
        guard let value = getenv("LEDGER_TEST_POSTGRES") else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }()
    static var configured: Bool { baseURL != nil }
    static let skipReason: Comment =
        "LEDGER_TEST_POSTGRES is unset: the PostgreSQL half of the suite is skipped (Scripts/postgres run swift test)"

    let name = "PostgreSQL"
    let concurrentWriters = 3
    let schema: String
    let url: String
    private let admin: Mutex<PostgresConnection>

    init() throws {
        let base = Self.baseURL!
        var random = SystemRandomNumberGenerator()
        schema = "conformance_" + String(random.next() & 0xFFFF_FFFF_FFFF, radix: 36)
        let separator = base.contains("?") ? "&" : "?"
        url = base + separator + "options=-csearch_path%3D" + schema + "&application_name=" + schema
        let connection = try PostgresConnection(base)
        try connection.run("CREATE SCHEMA \(schema)")
        admin = Mutex(connection)
    }

    deinit {
        admin.withLock { _ = try? $0.run("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
    }

    /// Runs SQL on the administrative connection (outside any store).
    @discardableResult
    func sql(_ text: String, _ parameters: [PostgresValue] = []) throws -> [[UInt8]] {
        try admin.withLock { connection throws -> [[UInt8]] in
            let result = try connection.execute(text, parameters)
            return (0..<result.rowCount).map { result.bytes($0, 0) }
        }
    }

    func openWriter(environment: String?, clock: @escaping @Sendable () -> Int64) throws -> any RecordStore {
        try PostgresStore.openWriter(url: url, environment: environment, clock: clock)
    }

    func openWriter(environment: String?, app: AppIdentity?) throws -> any RecordStore {
        try PostgresStore.openWriter(url: url, environment: environment, app: app, clock: steppingClock())
    }

    func openReader() throws -> any RecordStore {
        try PostgresStore.openReader(url: url)
    }

    /// The process dies inside its transaction: it holds the writers' lock and has inserted its records when the
    /// server loses its session (as when the process is killed), so the transaction rolls back.
    func crashDuringAppend(_ store: any RecordStore, _ entries: [LogEntry]) throws {
        store.close()
        let dying = try PostgresConnection(url)
        try dying.run("BEGIN")
        try dying.run("SELECT pg_advisory_xact_lock(1818584167, hashtext(current_schema()))")
        let head = try dying.execute("SELECT coalesce(max(seq), 0) FROM records")
        var seq = try head.integer(0, 0)
        for entry in entries {
            seq += 1
            try dying.execute(
                "INSERT INTO records (seq, recorded_at, idempotency_key, subject_keys, payload, hash) "
                    + "VALUES ($1, 0, $2, $3, $4, $5)",
                [
                    .int64(seq), .text(entry.idempotencyKey), .textArray(entry.subjectKeys), .bytes(entry.payload),
                    .bytes([UInt8](repeating: 0, count: 32)),
                ])
        }
        let pid = try dying.execute("SELECT pg_backend_pid()").integer(0, 0)
        try sql("SELECT pg_terminate_backend($1::int4)", [.int32(Int32(pid))])
        #expect(throws: PostgresError.self) { try dying.run("COMMIT") }
    }

    func tamper(seq: UInt64) throws {
        try sql("ALTER TABLE \(schema).records DISABLE TRIGGER records_append_only")
        try sql(
            "UPDATE \(schema).records SET payload = payload || '\\x00'::bytea WHERE seq = $1", [.int64(Int64(seq))])
        try sql("ALTER TABLE \(schema).records ENABLE TRIGGER records_append_only")
    }

    func verify(expectHead: [UInt8]?, readRecord: RecordReader?) throws -> VerifyReport {
        let store = try PostgresStore.openReader(url: url)
        defer { store.close() }
        return try store.verify(expectHead: expectHead, readRecord: readRecord)
    }
}

/// A clock that starts at 2026-01-01T00:00:00Z and moves 1 ms per call.
func steppingClock(from start: Int64 = 1_767_225_600_000) -> @Sendable () -> Int64 {
    let counter = Atomic<Int64>(0)
    return { start + counter.wrappingAdd(1, ordering: .relaxed).newValue }
}

/// A realistic entry: a notification-UUID-like key, three subjects, a payload of a few hundred bytes.
func entry(_ n: Int, key: String? = nil, time: Int64? = nil) -> LogEntry {
    LogEntry(
        idempotencyKey: key ?? "notification-\(n)", subjectKeys: ["user:\(n % 7)", "otid:\(2_000_000 + n % 13)"],
        payload: (0..<(200 + n % 50)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) }, recordedAt: time)
}
