import Testing

/// The storage contract, checked against the file log.
@Suite("Store conformance: file log")
struct FileStoreConformanceTests {
    @Test func appendAndReadBack() throws { try Conformance.appendAndReadBack(FileHarness()) }
    @Test func chainMatchesTheFileLog() throws { try Conformance.chainMatchesTheFileLog(FileHarness()) }
    @Test func idempotency() throws { try Conformance.idempotency(FileHarness()) }
    @Test func concurrentAppendsStayGapFree() throws { try Conformance.concurrentAppendsStayGapFree(FileHarness()) }
    @Test func verifyFindsRewrites() throws { try Conformance.verifyFindsRewrites(FileHarness()) }
    @Test func verifyFindsUnreadableRecords() throws { try Conformance.verifyFindsUnreadableRecords(FileHarness()) }
    @Test func environmentBinding() throws { try Conformance.environmentBinding(FileHarness()) }
    @Test func appBinding() throws { try Conformance.appBinding(FileHarness()) }
    @Test func evidenceAndDerivedFiles() throws { try Conformance.evidenceAndDerivedFiles(FileHarness()) }
    @Test func crashLosesOnlyTheUnacknowledged() throws {
        try Conformance.crashLosesOnlyTheUnacknowledged(FileHarness())
    }
    @Test func lifecyclesReadAsOnTheFileLog() throws { try Conformance.lifecyclesReadAsOnTheFileLog { FileHarness() } }
    @Test func knownAtQueries() throws { try Conformance.knownAtQueries(FileHarness()) }
    @Test func voids() throws { try Conformance.voids(FileHarness()) }
    @Test func catalogVersions() throws { try Conformance.catalogVersions(FileHarness()) }
    @Test func catalogVersionsOfOtherWriters() throws { try Conformance.catalogVersionsOfOtherWriters(FileHarness()) }
    @Test func exportImportKeepsTheHeadHash() throws { try Conformance.exportImportKeepsTheHeadHash(FileHarness()) }
}
