import LedgerLog
import LedgerPostgres
import LedgerStore
import Testing

/// What only the PostgreSQL store promises beyond the shared contract: several processes on one ledger, an
/// append-only table, a connection that heals, and connection strings that never show a password.
@Suite("PostgreSQL store")
struct PostgresStoreTests {
    @Test(arguments: [
        (
            "postgresql://ledger:s3cret@db1,db2/ledger?sslmode=require",
            "postgresql://ledger:***@db1,db2/ledger?sslmode=require"
        ),
        ("postgres://u@h/db?password=s3cret&sslmode=require", "postgres://u@h/db?password=***&sslmode=require"),
        ("host=/tmp dbname=ledger password=s3cret user=u", "host=/tmp dbname=ledger password=*** user=u"),
        ("postgresql://ledger@/ledger?host=/tmp/pg", "postgresql://ledger@/ledger?host=/tmp/pg"),
    ])
    func messagesNeverShowThePassword(url: String, shown: String) {
        #expect(PostgresURL.redacted(url) == shown)
        #expect(PostgresURL.isPostgres(url) == url.hasPrefix("postgres"))
    }

    /// A ledger whose `meta` table predates the identity columns reads with no identity, and the first write
    /// that names an app adds the columns and binds it.
    @Test(.enabled(if: PostgresHarness.configured, PostgresHarness.skipReason))
    func anEarlierMetaTableIsBoundAtTheNextWriteNamingAnApp() throws {
        let harness = try PostgresHarness()
        let first = try harness.openWriter()
        _ = try first.append([entry(1)])
        first.close()
        try harness.sql("ALTER TABLE \(harness.schema).meta DROP COLUMN bundle_id, DROP COLUMN app_apple_id")
        let earlier = try harness.openReader()
        #expect(earlier.binding.app == nil)
        #expect(earlier.head.seq == 1)
        earlier.close()
        let app = AppIdentity(bundleId: "com.visla.gps")
        let writer = try harness.openWriter(environment: "sandbox", app: app)
        _ = try writer.append([entry(2)])
        writer.close()
        let reader = try harness.openReader()
        defer { reader.close() }
        #expect(reader.binding.app == app)
        #expect(reader.head.seq == 2)
    }

    @Test(.enabled(if: PostgresHarness.configured, PostgresHarness.skipReason))
    func aReaderSeesWhatAnotherProcessAppends() throws {
        let harness = try PostgresHarness()
        let first = try harness.openWriter()
        defer { first.close() }
        _ = try first.append([entry(1)])
        let reader = try harness.openReader()
        defer { reader.close() }
        #expect(reader.head.seq == 1)
        let second = try harness.openWriter()
        defer { second.close() }
        _ = try second.append([entry(2), entry(1)])
        #expect(reader.head.seq == 2)
        #expect(try reader.seqs(forSubjectKey: entry(2).subjectKeys[0]) == [2])
        #expect(try reader.seq(forIdempotencyKey: "notification-2") == 2)
        #expect(first.head.hash == second.head.hash)
    }

    @Test(.enabled(if: PostgresHarness.configured, PostgresHarness.skipReason))
    func theRecordsTableRefusesChanges() throws {
        let harness = try PostgresHarness()
        let store = try harness.openWriter()
        defer { store.close() }
        _ = try store.putEvidence(batch: [Array("signed".utf8)])
        _ = try store.append([entry(1)])
        for statement in [
            "UPDATE \(harness.schema).records SET recorded_at = 0", "DELETE FROM \(harness.schema).records",
            "TRUNCATE \(harness.schema).records", "DELETE FROM \(harness.schema).evidence",
        ] {
            #expect(throws: PostgresError.self, "\(statement)") { try harness.sql(statement) }
        }
        #expect(store.head.seq == 1)
    }

    @Test(.enabled(if: PostgresHarness.configured, PostgresHarness.skipReason))
    func subjectKeysAndPayloadsRoundTripExactly() throws {
        let harness = try PostgresHarness()
        let store = try harness.openWriter()
        defer { store.close() }
        let odd = [
            LogEntry(idempotencyKey: "ключ-⚡️", subjectKeys: [], payload: []),
            LogEntry(idempotencyKey: "two", subjectKeys: ["user:1", "user:1", "otid:ü"], payload: [0, 0xFF, 0, 0x5C]),
        ]
        _ = try store.append(odd)
        #expect(try store.record(seq: 1).subjectKeys == [])
        #expect(try store.record(seq: 1).payload == [])
        #expect(try store.record(seq: 1).idempotencyKey == "ключ-⚡️")
        #expect(try store.record(seq: 2).subjectKeys == ["user:1", "user:1", "otid:ü"])
        #expect(try store.record(seq: 2).payload == [0, 0xFF, 0, 0x5C])
        #expect(try store.seqs(forSubjectKey: "user:1") == [2])
        #expect(try harness.verify(expectHead: store.head.hash).ok)
    }

    @Test(.enabled(if: PostgresHarness.configured, PostgresHarness.skipReason))
    func aBrokenConnectionIsReopened() throws {
        let harness = try PostgresHarness()
        let store = try harness.openWriter()
        defer { store.close() }
        _ = try store.append([entry(1)])
        // The server drops the store's sessions (as in a restart or a failover).
        try harness.sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
            [.text(harness.schema)])
        #expect(store.head.seq == 1, "the reader reconnects and retries")
        var outcome: [AppendOutcome] = []
        do {
            outcome = try store.append([entry(2)])
        } catch {
            // The first write on the dead connection fails (503 for the webhook); the next one reconnects.
            #expect(error.code == .io)
            outcome = try store.append([entry(2)])
        }
        #expect(outcome.map(\.seq) == [2])
        #expect(try harness.verify(expectHead: nil).ok)
    }
}
