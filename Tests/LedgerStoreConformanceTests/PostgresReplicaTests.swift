import LedgerStore
import Testing

@testable import LedgerPostgres

/// The in-memory copy of the records (``SubjectReplica``): its answers are the database's, it sees what another
/// handle appended by the next read, and a copy that outgrows its limit is given up for the database.
@Suite("PostgreSQL store: the in-memory copy", .enabled(if: PostgresHarness.configured, PostgresHarness.skipReason))
struct PostgresReplicaTests {
    @Test func answersAreTheDatabasesAndFollowOtherWriters() throws {
        let harness = try PostgresHarness()
        let writer = try #require(try harness.openWriter() as? PostgresStore)
        defer { writer.close() }
        _ = try writer.append((1...60).map { entry($0) })
        let copy = try PostgresStore.openReader(url: harness.url, replicaLimit: 64 << 20)
        defer { copy.close() }
        #expect(copy.awaitReplica(seconds: 30))
        let direct = try harness.openReader()
        defer { direct.close() }
        #expect(try PostgresSubjectIndexTests.lookups(copy) == PostgresSubjectIndexTests.lookups(direct))
        // Appended by another handle after the copy loaded: the next read of the copy has them.
        _ = try writer.append((61...90).map { entry($0) })
        let expected = try PostgresSubjectIndexTests.lookups(direct)
        #expect(expected[0].last == 84)
        #expect(try PostgresSubjectIndexTests.lookups(copy) == expected)
        // A snapshot reads the records up to the head when it was taken, whatever is appended after.
        let snapshot = try #require(try copy.subjectSnapshot())
        _ = try writer.append([entry(91)])
        var seqs: [UInt64] = []
        try snapshot.forEachPayload(forSubjectKey: "user:0", skipping: []) { seq, _, _ in seqs.append(seq) }
        #expect(seqs == expected[0])
        #expect(try copy.seqs(forSubjectKey: "user:0").last == 91)
        var next: [UInt64] = []
        try copy.forEachPayload(forSubjectKey: "user:0", skipping: []) { seq, _, _ in next.append(seq) }
        #expect(next == expected[0] + [91])
    }

    @Test func aCopyOverItsLimitIsGivenUpForTheDatabase() throws {
        let harness = try PostgresHarness()
        let writer = try #require(try harness.openWriter() as? PostgresStore)
        defer { writer.close() }
        _ = try writer.append((1...60).map { entry($0) })
        // One chunk of payloads is 4 MiB: a limit of 1 KiB is outgrown by the first record.
        let small = try PostgresStore.openReader(url: harness.url, replicaLimit: 1_024)
        defer { small.close() }
        #expect(!small.awaitReplica(seconds: 30))
        #expect(try small.subjectSnapshot() == nil)
        let direct = try harness.openReader()
        defer { direct.close() }
        #expect(try PostgresSubjectIndexTests.lookups(small) == PostgresSubjectIndexTests.lookups(direct))
    }

    @Test func closingWhileTheCopyLoadsEndsItsThread() throws {
        let harness = try PostgresHarness()
        let writer = try #require(try harness.openWriter() as? PostgresStore)
        _ = try writer.append((1...60).map { entry($0) })
        writer.close()
        for _ in 0..<5 {
            let store = try PostgresStore.openReader(url: harness.url, replicaLimit: 64 << 20)
            store.close()
            #expect(!store.awaitReplica(seconds: 1))
        }
    }
}
