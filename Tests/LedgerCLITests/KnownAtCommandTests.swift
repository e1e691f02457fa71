import LedgerCore
import LedgerJSON
import LedgerLog
import LedgerStore
import LedgerTesting
import Testing

@testable import LedgerService

/// Valid time and knowledge time through the CLI: a user refunded on day D, the refund recorded on D+2.
@Suite struct KnownAtCommandTests {
    let workspace = Workspace()

    static func at(_ text: String) -> Instant { Instant(parsing: text)! }

    /// Appends records with the recorded times given (as a ledger that learnt them then would have).
    func record(_ items: [(LedgerRecord, recordedAt: String)]) throws {
        let ledger = try Ledger.openWriter(at: workspace.data, environment: .sandbox)
        defer { ledger.close() }
        _ = try ledger.log.append(
            items.map { record, recordedAt in
                LogEntry(
                    idempotencyKey: record.idempotencyKey, subjectKeys: SubjectKeys.keys(for: record),
                    payload: record.encoded(), recordedAt: Self.at(recordedAt).milliseconds)
            })
    }

    @Test func aRefundIsInvisibleBeforeTheLedgerKnewIt() throws {
        var script = SubscriptionScript(originalTransactionId: "5000000001", userId: 42)
        let purchase = script.subscribe("com.visla.gps.monthly_3", at: Self.at("2026-03-01T00:00:00Z"))
        let refund = script.refund(at: Self.at("2026-03-10T00:00:00Z"))  // day D
        try record([(purchase, "2026-03-01T00:00:05Z"), (refund, "2026-03-12T00:00:00Z")])  // recorded on D+2

        func state(_ extra: [String]) -> JSONValue? {
            ledger(
                ["state", "--data", workspace.data, "--user", "42", "--at", "2026-03-11T00:00:00Z", "--json"] + extra
            ).json
        }
        let then = state(["--known-at", "2026-03-11T00:00:00Z"])
        #expect(then?["entitled"] == true)
        #expect(then?["status"] == "active")
        #expect(then?["knownAt"] == "2026-03-11T00:00:00Z")
        let now = state([])
        #expect(now?["entitled"] == false)
        #expect(now?["status"] == "refunded")
        // Before the refund took effect it was entitled, whatever the ledger knows.
        let before = ledger([
            "state", "--data", workspace.data, "--user", "42", "--at", "2026-03-09T23:59:59.999Z", "--json",
        ])
        #expect(before.json?["entitled"] == true)
        let history = ledger([
            "history", "--data", workspace.data, "--user", "42", "--known-at", "2026-03-11T00:00:00Z", "--json",
        ])
        #expect(history.json?.array?.count == 1)
    }
}
