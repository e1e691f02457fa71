import LedgerAppStore
import LedgerCore
import LedgerService
import LedgerTesting
import Testing

/// Every lifecycle of the fold's table, signed as Apple would send it and delivered through
/// verification, mapping and the log: shuffled and repeated deliveries answer as in-order delivery, and
/// as the lifecycle's own expectations say.
@Suite struct SignedLifecycleTests {
    let encoder = AppleNotificationEncoder()

    /// Ingests the lifecycle's records (Apple's through the pipeline, operator records appended as
    /// they are) in the given order and returns the ledger.
    func deliver(_ records: [LedgerRecord], into directory: TemporaryDirectory) throws -> Ledger {
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        let pipeline = IngestPipeline(
            ledger: ledger, verifier: try TestPKI.shared.verifier(),
            quarantine: Quarantine(dataDirectory: directory.path))
        for record in records {
            if let body = try encoder.body(for: record) {
                let result = try pipeline.ingest(body: body)
                if case .rejected(let status, let message) = result {
                    Issue.record("\(record.idempotencyKey) was rejected: \(status) \(message)")
                }
            } else {
                _ = try ledger.append([(record, nil)])
            }
        }
        return ledger
    }

    @Test(arguments: Lifecycle.all)
    func shuffledAndRepeatedDeliveryAnswersAsInOrder(_ lifecycle: Lifecycle) throws {
        let inOrder = lifecycle.entries.sorted { $0.seq < $1.seq }.map(\.record)
        var random = SeededRandom(seed: UInt64(lifecycle.name.utf8.reduce(17) { $0 &* 31 &+ UInt64($1) }))
        var messy = inOrder + inOrder.filter { $0.notification != nil }  // Apple retries every notification
        messy.shuffle(using: &random)

        let first = TemporaryDirectory()
        let second = TemporaryDirectory()
        let ordered = try deliver(inOrder, into: first)
        let shuffled = try deliver(messy, into: second)
        defer {
            ordered.close()
            shuffled.close()
        }
        let distinct = Set(inOrder.map(\.idempotencyKey)).count
        #expect(shuffled.head.seq == UInt64(distinct), "one record per distinct notification")
        for check in lifecycle.checks where check.knownAt == nil {
            let query = check.query ?? lifecycle.query
            let expected = try ordered.state(of: query, at: check.at, knownAt: nil)
            let actual = try shuffled.state(of: query, at: check.at, knownAt: nil)
            #expect(actual.status == expected.status, "\(lifecycle.name) at \(check.at)")
            #expect(actual.deviceLimit == expected.deviceLimit, "\(lifecycle.name) at \(check.at)")
            #expect(actual.subscriptions.map(\.productId) == expected.subscriptions.map(\.productId))
            #expect(actual.subscriptions.map(\.expiresAt) == expected.subscriptions.map(\.expiresAt))
            #expect(actual.status == check.status, "\(lifecycle.name) at \(check.at): the lifecycle's expectation")
            #expect(actual.deviceLimit == check.deviceLimit, "\(lifecycle.name) at \(check.at)")
        }
        let history = try shuffled.history(of: lifecycle.query)
        #expect(history.count <= distinct)
        #expect(history.map(\.effectiveAt) == history.map(\.effectiveAt).sorted())
    }
}
