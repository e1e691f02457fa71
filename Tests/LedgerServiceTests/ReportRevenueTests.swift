import LedgerCore
import LedgerService
import LedgerTesting
import Testing

/// The revenue the reports count: recurring revenue summed exactly, by currency, without operator grants;
/// prorated refunds and their reversals, in sales and events alike; nothing for Family Sharing members.
@Suite struct ReportRevenueTests {
    let directory = TemporaryDirectory()

    static func at(_ text: String) -> Instant { Instant(parsing: text)! }

    /// A version of transaction `txn` of user `user`'s annual_2 subscription (70.00 EUR), bought 2026-01-10.
    static func annual(
        user: Int64, txn: String, type: String, signed: String = "2026-01-10", ownership: String = "PURCHASED",
        revoked: String? = nil, revocationType: String? = nil, percentage: Int32? = nil
    ) -> LedgerRecord {
        let token = AccountToken.token(forUser: user)
        let transaction = TransactionFacts(
            transactionId: txn, originalTransactionId: "\(user)", productId: "com.visla.gps.annual_2",
            purchaseDate: at("2026-01-10"), expiresDate: at("2027-01-10"), appAccountToken: token,
            inAppOwnershipType: ownership, revocationDate: revoked.map(at), revocationType: revocationType,
            revocationPercentage: percentage, price: 70_000, currency: "EUR", transactionReason: "PURCHASE",
            signedDate: at(signed))
        return LedgerRecord(
            environment: .sandbox, source: .notification, idempotencyKey: "\(type)-\(txn)-\(signed)",
            subject: Subject(originalTransactionId: "\(user)", appAccountToken: token),
            notification: NotificationFacts(type: type, uuid: "\(type)-\(txn)-\(signed)", signedDate: at(signed)),
            transaction: transaction)
    }

    func ledger(_ records: [LedgerRecord]) throws -> Ledger {
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        _ = try ledger.append(records.map { ($0, nil) })
        return ledger
    }

    @Test func recurringRevenueIsSummedExactlyAndLeavesOutGrants() throws {
        let grant = RecordBuilders.grant(
            Subject(userId: 9), productId: "com.visla.gps.annual_10", from: Self.at("2026-01-01"),
            until: Self.at("2026-03-01"), key: "goodwill-9")
        let ledger = try ledger((1...3).map { Self.annual(user: $0, txn: "\($0)0", type: "SUBSCRIBED") } + [grant])
        defer { ledger.close() }
        let period = ReportPeriod(from: Self.at("2026-02-01"), to: Self.at("2026-02-02"), unit: .day)
        // 3 × 70.00 / 12 = 17.50 (each share rounded down first gave 17.499); the grant is active, not revenue.
        let mrr = try ledger.report(.mrr, period: period).texts
        #expect(mrr == [["2026-02-01", "2026-02-01T23:59:59.999Z", "EUR", "17.50", "3"]], "\(mrr)")
        #expect(try ledger.report(.active, period: period).texts.first?[5] == "4")
    }

    @Test func aProratedRefundAndItsReversalCountTheSameInSalesAndEvents() throws {
        let ledger = try ledger([
            Self.annual(user: 1, txn: "10", type: "SUBSCRIBED"),
            Self.annual(
                user: 1, txn: "10", type: "REFUND", signed: "2026-01-20", revoked: "2026-01-20",
                revocationType: "REFUND_PRORATED", percentage: 11_000),
            Self.annual(user: 1, txn: "10", type: "REFUND_REVERSED", signed: "2026-02-03"),
        ])
        defer { ledger.close() }
        let period = ReportPeriod(from: Self.at("2026-01-01"), to: Self.at("2026-03-01"), unit: .month)
        let events = try ledger.report(.events, period: period).texts
        #expect(events.map { $0[11] } == ["70.00", "-7.70", "7.70"], "11 % of 70.00 refunded, then given back")
        // Sales reads the latest version: the refund was reversed, so none is counted.
        #expect(try ledger.report(.sales, period: period).texts.map { $0[10...12] } == [["70.00", "0.00", "70.00"]])
    }

    @Test func aFamilyMembersSharedTransactionIsNoSale() throws {
        let ledger = try ledger([
            Self.annual(user: 1, txn: "10", type: "SUBSCRIBED"),
            Self.annual(user: 2, txn: "20", type: "SUBSCRIBED", ownership: "FAMILY_SHARED"),
        ])
        defer { ledger.close() }
        let period = ReportPeriod(from: Self.at("2026-01-01"), to: Self.at("2026-02-01"), unit: .month)
        #expect(try ledger.report(.sales, period: period).texts.map { $0[4] } == ["1"], "one purchase")
        #expect(try ledger.report(.events, period: period).texts.map { $0[11] } == ["70.00", ""])
        let churn = try ledger.report(.churn, period: period)
        #expect(churn.svg().contains("Churn rate (% of subscriptions active"))
    }
}
