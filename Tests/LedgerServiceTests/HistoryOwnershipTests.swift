import LedgerCore
import LedgerJSON
import LedgerLog
import LedgerService
import LedgerTesting
import Synchronization
import Testing

/// `history` answers with the ownership the ledger knew: a link recorded later does not reach back, and a
/// subscription's history holds the corrections addressed to its owner.
@Suite struct HistoryOwnershipTests {
    let directory = TemporaryDirectory(prefix: "ledger-history-ownership")
    let clock = SetClock()

    /// A clock the test sets.
    final class SetClock: Sendable {
        private let now = Mutex<Int64>(0)
        func set(_ instant: String) { now.withLock { $0 = RecordBuilders.instant(instant).milliseconds } }
        var function: @Sendable () -> Int64 { { [self] in now.withLock { $0 } } }
    }

    /// A ledger whose recording times the test sets, with `records` appended at the given instants.
    func ledger(_ records: [(at: String, record: LedgerRecord)]) throws -> Ledger {
        let log = try EventLog.openWriter(
            at: directory.path, environment: LedgerEnvironment.sandbox.rawValue,
            clock: clock.function)
        let ledger = Ledger(log: log)
        for (at, record) in records {
            clock.set(at)
            _ = try ledger.append([(record, nil)])
        }
        return ledger
    }

    @Test func aLinkRecordedLaterDoesNotReachBackIntoAnEarlierKnowledge() throws {
        // An orphan subscription (no appAccountToken), linked to user 13 on 1 March.
        var orphan = SubscriptionScript(originalTransactionId: "2000000000130001", userId: nil)
        let bought = orphan.subscribe("com.visla.gps.monthly_2", at: RecordBuilders.instant("2026-01-10T00:00:00Z"))
        let link = RecordBuilders.link(originalTransactionId: "2000000000130001", userId: 13, key: "link-13")
        let ledger = try ledger([("2026-01-10T00:00:01Z", bought), ("2026-03-01T00:00:00Z", link)])
        defer { ledger.close() }
        let before = RecordBuilders.instant("2026-02-01T00:00:00Z")
        #expect(try ledger.history(of: .user(13), knownAt: before).isEmpty, "the orphan was not the user's yet")
        #expect(try ledger.state(of: .user(13), at: before, knownAt: before).subscriptions.isEmpty)
        let entries = try ledger.history(of: .user(13)).map(\.historyJSON)
        #expect(entries.map { $0["seq"] } == [1, 2])
        // Apple's record has no operator; the link says why and who.
        #expect(entries[0]["reason"] == nil && entries[0]["operator"] == nil)
        #expect(entries[1]["kind"]?.string == "link" && entries[1]["operator"] != nil)
    }

    @Test func aSubscriptionsHistoryHoldsTheRevokeAddressedToItsOwner() throws {
        var script = SubscriptionScript(originalTransactionId: "2000000000010001", userId: 1)
        let bought = script.subscribe("com.visla.gps.monthly_3", at: RecordBuilders.instant("2026-01-10T00:00:00Z"))
        let revoke = RecordBuilders.revoke(
            Subject(userId: 1), from: RecordBuilders.instant("2026-01-20T00:00:00Z"), key: "revoke-1")
        let ledger = try ledger([("2026-01-10T00:00:01Z", bought), ("2026-01-20T00:00:00Z", revoke)])
        defer { ledger.close() }
        let query = SubjectQuery.originalTransaction("2000000000010001")
        let state = try ledger.state(of: query, at: RecordBuilders.instant("2026-01-25T00:00:00Z"), knownAt: nil)
        #expect(state.subscriptions.first?.status == .revoked)
        #expect(try ledger.history(of: query).map(\.seq) == [1, 2], "the revoke that ended it is in its history")
        #expect(try ledger.history(of: query, knownAt: RecordBuilders.instant("2026-01-15T00:00:00Z")).count == 1)
    }

    @Test func aGrantsHistoryEntryNamesItsProductAndTheSubscriptionItMakes() throws {
        let grant = RecordBuilders.grant(
            Subject(userId: 7), productId: "com.visla.gps.annual_4",
            from: RecordBuilders.instant("2026-02-01T00:00:00Z"),
            until: RecordBuilders.instant("2026-03-01T00:00:00Z"), key: "grant-7")
        let ledger = try ledger([("2026-02-01T00:00:00Z", grant)])
        defer { ledger.close() }
        let state = try ledger.state(of: .user(7), at: RecordBuilders.instant("2026-02-10T00:00:00Z"), knownAt: nil)
        let entry = try #require(try ledger.history(of: .user(7)).first).historyJSON
        #expect(entry["kind"]?.string == "correction")
        #expect(entry["productId"]?.string == "com.visla.gps.annual_4")
        #expect(entry["originalTransactionId"]?.string == state.subscriptions.first?.originalTransactionId)
        #expect(state.subscriptions.first?.originalTransactionId == "correction:grant-7")
        // Why and who, at the top level, as a void's entry says them.
        #expect(entry["reason"]?.string == "goodwill")
        #expect(entry["operator"]?.string == "ops")
    }
}
