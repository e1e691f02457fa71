import LedgerCore
import LedgerCrypto
import LedgerLog
import LedgerService
import LedgerTesting
import Testing

/// The ledger's reads of a subject over the seam: whatever way a store reads them (key by key, or a key with the
/// keys its records carry at once), a subject gets the records the file log gives it.
extension Conformance {
    /// Each lifecycle's records in a store of their own (`harness` makes a new one each time): each subject's
    /// entries, and its entitlement at each checked instant, are the file log's.
    static func lifecyclesReadAsOnTheFileLog<Harness: StoreHarness>(_ harness: () throws -> Harness) throws {
        let recordedAt = RecordBuilders.instant("2026-06-01T00:00:00Z").milliseconds
        var queried = 0
        var harnesses: [Harness] = []  // each keeps its store's schema or directory while it lives
        for (number, lifecycle) in Lifecycle.all.enumerated() {
            let directory = TemporaryDirectory(prefix: "ledger-conformance-reference")
            let reference = Ledger(
                log: try EventLog.openWriter(at: directory.path, environment: "sandbox", clock: { recordedAt }))
            defer { reference.close() }
            harnesses.append(try harness())
            let ledger = Ledger(log: try harnesses[number].openWriter(environment: "sandbox", clock: { recordedAt }))
            defer { ledger.close() }
            let items = lifecycle.entries.map { (record: $0.record, evidence: HashedBytes?.none) }
            #expect(try ledger.append(items).map(\.seq) == reference.append(items).map(\.seq))
            let subscriptions = lifecycle.entries.compactMap { $0.record.subject.originalTransactionId }
            let queries =
                [lifecycle.query] + lifecycle.checks.compactMap(\.query)
                + subscriptions.map(SubjectQuery.originalTransaction)
            var found = Set<UInt64>()
            for query in Set(queries) {
                queried += 1
                let seqs = try ledger.entries(for: query).map(\.seq)
                found.formUnion(seqs)
                #expect(
                    seqs.sorted() == (try reference.entries(for: query)).map(\.seq).sorted(), "\(lifecycle): \(query)")
                for check in lifecycle.checks {
                    #expect(
                        try ledger.state(of: query, at: check.at, knownAt: nil)
                            == reference.state(of: query, at: check.at, knownAt: nil),
                        "\(lifecycle): \(query) at \(check.at)")
                }
            }
            #expect(UInt64(found.count) == reference.head.seq, "lifecycle \(number): every record is some subject's")
        }
        #expect(queried > Lifecycle.all.count, "users, accounts and subscriptions")
    }
}
