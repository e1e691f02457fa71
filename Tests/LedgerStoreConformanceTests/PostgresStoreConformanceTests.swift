import Testing

/// The storage contract, checked against PostgreSQL (a schema of its own per test in the database `$LEDGER_TEST_POSTGRES` names).
@Suite("Store conformance: PostgreSQL", .enabled(if: PostgresHarness.configured, PostgresHarness.skipReason))
struct PostgresStoreConformanceTests {
    @Test func appendAndReadBack() throws { try Conformance.appendAndReadBack(PostgresHarness()) }
    @Test func chainMatchesTheFileLog() throws { try Conformance.chainMatchesTheFileLog(PostgresHarness()) }
    @Test func idempotency() throws { try Conformance.idempotency(PostgresHarness()) }
    @Test func concurrentAppendsStayGapFree() throws { try Conformance.concurrentAppendsStayGapFree(PostgresHarness()) }
    @Test func verifyFindsRewrites() throws { try Conformance.verifyFindsRewrites(PostgresHarness()) }
    @Test func verifyFindsUnreadableRecords() throws { try Conformance.verifyFindsUnreadableRecords(PostgresHarness()) }
    @Test func environmentBinding() throws { try Conformance.environmentBinding(PostgresHarness()) }
    @Test func appBinding() throws { try Conformance.appBinding(PostgresHarness()) }
    @Test func evidenceAndDerivedFiles() throws { try Conformance.evidenceAndDerivedFiles(PostgresHarness()) }
    @Test func crashLosesOnlyTheUnacknowledged() throws {
        try Conformance.crashLosesOnlyTheUnacknowledged(PostgresHarness())
    }
    @Test func lifecyclesReadAsOnTheFileLog() throws {
        try Conformance.lifecyclesReadAsOnTheFileLog { try PostgresHarness() }
    }
    @Test func knownAtQueries() throws { try Conformance.knownAtQueries(PostgresHarness()) }
    @Test func voids() throws { try Conformance.voids(PostgresHarness()) }
    @Test func catalogVersions() throws { try Conformance.catalogVersions(PostgresHarness()) }
    @Test func catalogVersionsOfOtherWriters() throws {
        try Conformance.catalogVersionsOfOtherWriters(PostgresHarness())
    }
    @Test func exportImportKeepsTheHeadHash() throws { try Conformance.exportImportKeepsTheHeadHash(PostgresHarness()) }
}
