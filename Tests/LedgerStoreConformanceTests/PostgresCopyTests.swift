import LedgerLog
import LedgerPostgres
import LedgerStore
import LedgerSystem
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Batches of ``PostgresStore/copyThreshold`` records and more go by `COPY … FROM STDIN (FORMAT binary)`: the
/// same records, chain hashes and subject index as the file log; a COPY the server refuses half-way, or a writer
/// killed inside its copying transaction, leaves nothing and the chain goes on gap-free.
@Suite("PostgreSQL store: copied batches", .enabled(if: PostgresHarness.configured, PostgresHarness.skipReason))
struct PostgresCopyTests {
    /// A batch big enough to be copied, with keys of every shape.
    static func batch(_ range: ClosedRange<Int>) -> [LogEntry] {
        range.map { n in
            var made: LogEntry
            switch n % 5 {
            case 0: made = LogEntry(idempotencyKey: "odd-\(n)", subjectKeys: ["quote\"d", "{b,c}", "ü⚡️"], payload: [])
            case 1: made = LogEntry(idempotencyKey: "none-\(n)", subjectKeys: [], payload: [UInt8(n % 256)])
            case 2:
                made = LogEntry(idempotencyKey: "twice-\(n)", subjectKeys: ["user:1", "user:1", "NULL"], payload: [9])
            default: made = entry(n)
            }
            // Times of their own, so both stores record the same instants whatever their clocks do.
            made.recordedAt = 1_767_225_600_000 + Int64(n)
            return made
        }
    }

    /// A fresh schema and its writer, holding the first 100 records of ``batch(_:)``.
    static func writerHoldingAHundred() throws -> (harness: PostgresHarness, store: any RecordStore) {
        let harness = try PostgresHarness()
        let store = try harness.openWriter()
        _ = try store.append(batch(1...100))
        return (harness, store)
    }

    @Test func aCopiedBatchHasTheFileLogsHashesAndIndex() throws {
        let postgres = try PostgresHarness()
        let file = FileHarness()
        let pg = try postgres.openWriter()
        defer { pg.close() }
        let log = try file.openWriter()
        defer { log.close() }
        // Twice: once the long way (head read under the lock), once assuming the head the first commit left.
        for range in [1...150, 151...400] {
            let entries = Self.batch(range) + [entry(3)]
            let outcomes = try pg.append(entries)
            #expect(outcomes == (try log.append(entries)))
            #expect(outcomes.last == .duplicate(seq: 3))
        }
        #expect(pg.head.seq == 400)
        #expect(pg.head.hash == log.head.hash)
        for seq in [1, 2, 3, 150, 151, 400] as [UInt64] {
            let stored = try pg.record(seq: seq)
            let expected = try log.record(seq: seq)
            #expect(stored.hash == expected.hash)
            #expect(stored.subjectKeys == expected.subjectKeys)
            #expect(stored.payload == expected.payload)
        }
        for key in ["user:1", "quote\"d", "{b,c}", "ü⚡️", "NULL", entry(8).subjectKeys[1]] {
            #expect(try pg.seqs(forSubjectKey: key) == (try log.seqs(forSubjectKey: key)), "\(key)")
        }
        #expect(try postgres.verify(expectHead: log.head.hash).ok)
    }

    @Test func aCopyTheServerRefusesHalfWayLeavesNothing() throws {
        let (harness, store) = try Self.writerHoldingAHundred()
        defer { store.close() }
        let head = store.head
        // Row 71 of the copy has a key PostgreSQL's text cannot hold (NUL): the server fails the COPY there.
        var entries = Self.batch(101...300)
        entries[70] = LogEntry(idempotencyKey: "nul\u{0}key", subjectKeys: ["user:2"], payload: [1])
        #expect(throws: LogError.self) { try store.append(entries) }
        #expect(store.head == head)
        #expect(
            try harness.sql("SELECT count(*)::int8 FROM \(harness.schema).record_subjects WHERE seq > 100")
                == [[0, 0, 0, 0, 0, 0, 0, 0]])
        entries[70] = entry(170)
        #expect(try store.append(entries).map(\.seq) == Array(101...300))
        #expect(try harness.verify(expectHead: store.head.hash).ok)
    }

    @Test func aWriterKilledInItsCopyingTransactionLeavesNothing() throws {
        let (harness, store) = try Self.writerHoldingAHundred()
        defer { store.close() }
        // A small batch too: its inserts are prepared on the connection about to be killed.
        #expect(try store.append([entry(1_000)]).map(\.seq) == [101])
        let head = store.head
        // Another session holds the writers' lock, so the copying transaction waits inside its script; then its
        // backend is killed (as when the server restarts or an operator ends it).
        let holder = try PostgresConnection(harness.url)
        try holder.run("BEGIN")
        try holder.run("SELECT pg_advisory_xact_lock(1818584167, hashtext(current_schema()))")
        let entries = Self.batch(101...400)
        let failure = Mutex<LogError?>(nil)
        runThreads(2) { thread in
            guard thread == 0 else {
                do throws(LogError) {
                    _ = try store.append(entries)
                } catch {
                    failure.withLock { $0 = error }
                }
                return
            }
            for _ in 0..<1_000 {
                let waiting = try? harness.sql(
                    "SELECT l.pid::int4 FROM pg_locks AS l JOIN pg_stat_activity AS a ON a.pid = l.pid "
                        + "WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = $1",
                    [.text(harness.schema)])
                if let pid = waiting?.first, pid.count == 4 {
                    let value = pid.reduce(Int32(0)) { $0 << 8 | Int32($1) }
                    _ = try? harness.sql("SELECT pg_terminate_backend($1::int4)", [.int32(value)])
                    return
                }
                usleep(2_000)
            }
        }
        try holder.run("ROLLBACK")
        let error = failure.withLock { $0 }
        #expect(error?.code == .io)
        #expect(error?.message.contains("unknown") == true, "\(String(describing: error))")
        #expect(store.head == head)
        // The handle reconnects; the retry stores the batch once, gap-free.
        #expect(try store.append(entries).map(\.seq) == Array(102...401))
        // The new connection prepares the small batches' inserts again.
        #expect(try store.append([entry(1_001)]).map(\.seq) == [402])
        #expect(try harness.verify(expectHead: store.head.hash).ok)
    }
}
