import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerPostgres

/// The subject index filled after the appends: answers never miss a record the index has not reached, a writer
/// catches a lagging index up, and a ledger of format 1 (indexed in its appends) is taken over as it is.
@Suite("PostgreSQL store: the subject index", .enabled(if: PostgresHarness.configured, PostgresHarness.skipReason))
struct PostgresSubjectIndexTests {
    static let keys = ["user:0", "user:3", "otid:2000004", "otid:2000012", "nobody"]

    /// What each key reads: its seqs, and the seqs and payloads of its records.
    static func lookups(_ store: any RecordStore) throws -> [[UInt64]] {
        try keys.flatMap { key in
            var payloads: [UInt64] = []
            try store.forEachPayload(forSubjectKey: key, skipping: [3]) { seq, _, payload in
                #expect(Array(payload) == entry(Int(seq)).payload)
                payloads.append(seq)
            }
            return [try store.seqs(forSubjectKey: key), payloads]
        }
    }

    static func rowCount(_ harness: PostgresHarness) throws -> String {
        String(
            decoding: try harness.sql("SELECT count(*)::text FROM \(harness.schema).record_subjects")[0], as: UTF8.self)
    }

    static func mark(_ harness: PostgresHarness) throws -> String {
        String(decoding: try harness.sql("SELECT subjects_through::text FROM \(harness.schema).meta")[0], as: UTF8.self)
    }

    @Test func recordsPastTheMarkAreFoundUntilAWriterIndexesThem() throws {
        let harness = try PostgresHarness()
        let writer = try #require(try harness.openWriter() as? PostgresStore)
        _ = try writer.append((1...40).map { entry($0) })
        _ = try writer.append((41...60).map { entry($0) })
        #expect(try writer.indexSubjects() == 60)
        let expected = try Self.lookups(writer)
        #expect(expected[0] == (1...60).filter { $0 % 7 == 0 }.map(UInt64.init))
        let rows = try Self.rowCount(harness)
        writer.close()
        // As a process stopped before its indexing turn ended leaves it: the index up to seq 25 only.
        try harness.sql("DELETE FROM \(harness.schema).record_subjects WHERE seq > 25")
        try harness.sql("UPDATE \(harness.schema).meta SET subjects_through = 25")
        let reader = try harness.openReader()
        #expect(try Self.lookups(reader) == expected)
        reader.close()
        // A writer opened on it indexes the rest (by its close at the latest).
        let next = try harness.openWriter()
        #expect(try Self.lookups(next) == expected)
        next.close()
        #expect(try Self.mark(harness) == "60")
        #expect(try Self.rowCount(harness) == rows)
    }

    /// The pass that finds nothing to index, the last of every turn, reads no record: the mark bounds its scan of
    /// the primary key (joined with the mark's row instead, the plan read the whole table to find none).
    @Test func aPassWithNothingToIndexReadsNoRecord() throws {
        let harness = try PostgresHarness()
        let writer = try #require(try harness.openWriter() as? PostgresStore)
        _ = try writer.append((1...200).map { entry($0) })
        #expect(try writer.indexSubjects() == 200)
        writer.close()
        let connection = try PostgresConnection(harness.url)
        // Seq scans disfavoured: on 200 records the planner could otherwise read the table either way.
        try connection.run("SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off")
        try connection.run("PREPARE pass(int8) AS \(PostgresQuery.indexSubjects.sql)")
        let result = try connection.execute("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) EXECUTE pass(50000)")
        let plan = (0..<result.rowCount).map { result.text($0, 0) }
        let scans = plan.filter { $0.contains(" on records ") }
        #expect(!scans.isEmpty && scans.allSatisfy { $0.contains("rows=0 ") }, "\(plan.joined(separator: "\n"))")
        #expect(!plan.contains { $0.contains("Rows Removed") }, "\(plan.joined(separator: "\n"))")
    }

    @Test func concurrentWritersLeaveOneWholeIndex() throws {
        let harness = try PostgresHarness()
        let writers = try (0..<3).map { _ in try harness.openWriter() }
        runThreads(3) { thread in
            for n in stride(from: thread + 1, through: 90, by: 3) { _ = try? writers[thread].append([entry(n)]) }
        }
        for writer in writers { writer.close() }
        #expect(try Self.mark(harness) == "90")
        let derived = try harness.sql(
            "SELECT count(*)::text FROM (SELECT DISTINCT k, seq FROM \(harness.schema).records, unnest(subject_keys) k) d"
        )
        #expect(try Self.rowCount(harness) == String(decoding: derived[0], as: UTF8.self))
    }

    @Test func aLedgerOfFormatOneIsTakenOverWithItsIndexWhole() throws {
        let harness = try PostgresHarness()
        let first = try harness.openWriter()
        _ = try first.append((1...30).map { entry($0) })
        first.close()
        let reader = try harness.openReader()
        let expected = try Self.lookups(reader)
        reader.close()
        // Format 1: no mark, every record indexed by its append.
        try harness.sql("ALTER TABLE \(harness.schema).meta DROP COLUMN subjects_through")
        try harness.sql("UPDATE \(harness.schema).meta SET format = 1")
        let earlier = try harness.openReader()
        #expect(try Self.lookups(earlier) == expected)
        earlier.close()
        let writer = try harness.openWriter()
        #expect(try Self.mark(harness) == "30")
        #expect(try harness.sql("SELECT format::text FROM \(harness.schema).meta") == [Array("2".utf8)])
        _ = try writer.append([entry(31)])
        writer.close()
        #expect(try Self.mark(harness) == "31")
        let later = try harness.openReader()
        defer { later.close() }
        #expect(try later.seqs(forSubjectKey: "user:3").last == 31)
    }
}
