import LedgerCore
import LedgerJSON
import LedgerService
import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A hand-built population with report figures computed by hand.
///
/// - user 1: monthly_1 (4.90) bought 2026-01-01, renewed 02-01 and 03-01;
/// - user 2: annual_2 (70.00) bought 01-10, refunded in full 01-20;
/// - user 3: monthly_3 (11.70) bought 02-05, upgraded to monthly_5 (19.50) on 02-15.
@Suite struct ReportTests {
    let directory = TemporaryDirectory()

    static func at(_ text: String) -> Instant { Instant(parsing: text)! }

    static func record(
        user: Int64, otid: String, txn: String, product: String, type: String, subtype: String? = nil,
        purchase: String, expires: String, price: Int64, reason: String = "PURCHASE", revoked: String? = nil,
        signed: String? = nil
    ) -> LedgerRecord {
        let signedDate = at(signed ?? purchase)
        let transaction = TransactionFacts(
            transactionId: txn, originalTransactionId: otid, productId: product, purchaseDate: at(purchase),
            expiresDate: at(expires), appAccountToken: AccountToken.token(forUser: user),
            revocationDate: revoked.map(at), revocationReason: revoked == nil ? nil : 0, price: price, currency: "EUR",
            transactionReason: reason, signedDate: signedDate)
        return LedgerRecord(
            environment: .sandbox, source: .notification, idempotencyKey: "\(type)-\(txn)-\(signedDate.milliseconds)",
            subject: Subject(originalTransactionId: otid, appAccountToken: AccountToken.token(forUser: user)),
            notification: NotificationFacts(
                type: type, subtype: subtype, uuid: "\(type)-\(txn)", signedDate: signedDate),
            transaction: transaction)
    }

    func ledger() throws -> Ledger {
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        let records = [
            Self.record(
                user: 1, otid: "1", txn: "11", product: "com.visla.gps.monthly_1", type: "SUBSCRIBED",
                subtype: "INITIAL_BUY", purchase: "2026-01-01", expires: "2026-02-01", price: 4900),
            Self.record(
                user: 1, otid: "1", txn: "12", product: "com.visla.gps.monthly_1", type: "DID_RENEW",
                purchase: "2026-02-01", expires: "2026-03-01", price: 4900, reason: "RENEWAL"),
            Self.record(
                user: 1, otid: "1", txn: "13", product: "com.visla.gps.monthly_1", type: "DID_RENEW",
                purchase: "2026-03-01", expires: "2026-04-01", price: 4900, reason: "RENEWAL"),
            Self.record(
                user: 2, otid: "2", txn: "21", product: "com.visla.gps.annual_2", type: "SUBSCRIBED",
                subtype: "INITIAL_BUY", purchase: "2026-01-10", expires: "2027-01-10", price: 70000),
            Self.record(
                user: 2, otid: "2", txn: "21", product: "com.visla.gps.annual_2", type: "REFUND",
                purchase: "2026-01-10", expires: "2027-01-10", price: 70000, revoked: "2026-01-20",
                signed: "2026-01-20"),
            Self.record(
                user: 3, otid: "3", txn: "31", product: "com.visla.gps.monthly_3", type: "SUBSCRIBED",
                subtype: "INITIAL_BUY", purchase: "2026-02-05", expires: "2026-03-05", price: 11700),
            Self.record(
                user: 3, otid: "3", txn: "32", product: "com.visla.gps.monthly_5", type: "DID_CHANGE_RENEWAL_PREF",
                subtype: "UPGRADE", purchase: "2026-02-15", expires: "2026-03-15", price: 19500),
        ]
        _ = try ledger.append(records.map { ($0, nil) })
        return ledger
    }

    @Test func salesByMonth() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let table = try ledger.report(
            .sales, period: ReportPeriod(from: Self.at("2026-01-01"), to: Self.at("2026-04-01"), unit: .month))
        #expect(
            table.columns == [
                "period", "productId", "storefront", "currency", "purchases", "renewals", "upgrades", "downgrades",
                "refunds", "units", "sales", "refunded", "net", "proceeds",
            ])
        // Proceeds at 30% commission (first year): 4.90 → 3.43, 11.70 → 8.19, 19.50 → 13.65; the refunded annual_2
        // is -1 unit, -70.00 and -49.00 of proceeds in the bucket of its revocation (January too).
        #expect(
            table.texts == [
                [
                    "2026-01", "com.visla.gps.annual_2", "", "EUR", "1", "0", "0", "0", "-1", "0", "70.00", "-70.00",
                    "0.00", "0.00",
                ],
                [
                    "2026-01", "com.visla.gps.monthly_1", "", "EUR", "1", "0", "0", "0", "0", "1", "4.90", "0.00",
                    "4.90",
                    "3.43",
                ],
                [
                    "2026-02", "com.visla.gps.monthly_1", "", "EUR", "0", "1", "0", "0", "0", "1", "4.90", "0.00",
                    "4.90",
                    "3.43",
                ],
                [
                    "2026-02", "com.visla.gps.monthly_3", "", "EUR", "1", "0", "0", "0", "0", "1", "11.70", "0.00",
                    "11.70", "8.19",
                ],
                [
                    "2026-02", "com.visla.gps.monthly_5", "", "EUR", "0", "0", "1", "0", "0", "1", "19.50", "0.00",
                    "19.50", "13.65",
                ],
                [
                    "2026-03", "com.visla.gps.monthly_1", "", "EUR", "0", "1", "0", "0", "0", "1", "4.90", "0.00",
                    "4.90",
                    "3.43",
                ],
            ])
    }

    /// Active subscriptions are counted at the end of each bucket (the defect of issue 30: they were taken at its
    /// start, so a refund at midnight showed on the day it happened, not the day before).
    @Test func activeSubscriptionsAndDevicesAtTheEndOfEachDay() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let period = ReportPeriod(from: Self.at("2026-01-15"), to: Self.at("2026-02-21"), unit: .day)
        let table = try ledger.report(.active, period: period)
        let totals = table.texts.filter { $0[2] == "ALL" }
        let byDay = Dictionary(uniqueKeysWithValues: totals.map { ($0[0], Array($0[5...6])) })
        #expect(byDay["2026-01-15"] == ["2", "3"])  // user 1 (1 device) and user 2 (2 devices)
        #expect(byDay["2026-01-19"] == ["2", "3"])  // user 2 is refunded at 01-20 00:00: still active on the 19th
        #expect(byDay["2026-01-20"] == ["1", "1"])
        #expect(byDay["2026-02-10"] == ["2", "4"])  // user 1 and user 3 on monthly_3
        #expect(byDay["2026-02-14"] == ["2", "4"])
        #expect(byDay["2026-02-15"] == ["2", "6"])  // user 3 upgraded to monthly_5 at 02-15 00:00
        #expect(totals.count == 37)
        #expect(totals.first?[1] == "2026-01-15T23:59:59.999Z", "the asOf column says when the figure is taken")
        let february15 = table.texts.filter { $0[0] == "2026-02-15" && $0[2] != "ALL" }
        #expect(
            february15 == [
                ["2026-02-15", "2026-02-15T23:59:59.999Z", "com.visla.gps.monthly_1", "monthly", "1", "1", "1", "0"],
                ["2026-02-15", "2026-02-15T23:59:59.999Z", "com.visla.gps.monthly_5", "monthly", "5", "1", "5", "0"],
            ])
    }

    @Test func monthlyRecurringRevenue() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let period = ReportPeriod(from: Self.at("2026-01-15"), to: Self.at("2026-01-16"), unit: .day)
        // 4.90 (monthly_1) + 70.00 / 12 = 5.8333 (annual_2) → 10.7333, rounded to the cent once: 10.73, at the
        // end of 01-15 (the old 10.733 showed a sub-cent amount)
        #expect(
            try ledger.report(.mrr, period: period).texts == [
                ["2026-01-15", "2026-01-15T23:59:59.999Z", "EUR", "10.73", "2"]
            ])
    }

    @Test func churnIsARateOfTheSubscriptionsActiveAtTheStart() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let period = ReportPeriod(from: Self.at("2026-01-01"), to: Self.at("2026-03-01"), unit: .month)
        // January: nobody is entitled just before 01-01. February: user 1 at the end of January (user 2 was
        // refunded, user 3 starts 02-05 and counts in neither); user 1 is still entitled at the end of February.
        #expect(
            try ledger.report(.churn, period: period).texts == [
                ["2026-01", "2026-01-01T00:00:00Z", "2026-01-31T23:59:59.999Z", "0", "0", "0.0"],
                ["2026-02", "2026-02-01T00:00:00Z", "2026-02-28T23:59:59.999Z", "1", "0", "0.0"],
            ])
        let april = ReportPeriod(from: Self.at("2026-03-10"), to: Self.at("2026-04-10"), unit: .month)
        // Buckets [03-10, 04-01) and [04-01, 04-10). Just before 03-10: user 1 (until 04-01, exclusive) and user 3
        // (monthly_5 until 03-15); at the end of March only user 1: 1 of 2 churned, 0.5. Then user 1 of 1: 1.0.
        #expect(
            try ledger.report(.churn, period: april).texts == [
                ["2026-03", "2026-03-10T00:00:00Z", "2026-03-31T23:59:59.999Z", "2", "1", "0.5"],
                ["2026-04", "2026-04-01T00:00:00Z", "2026-04-09T23:59:59.999Z", "1", "1", "1.0"],
            ])
    }

    @Test func eventsAreOneRowPerRecordWithApplesEventNames() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let table = try ledger.report(
            .events, period: ReportPeriod(from: Self.at("2026-01-01"), to: Self.at("2026-04-01"), unit: .day))
        let events = table.texts
        #expect(events.count == 7)
        #expect(
            events.map { $0[4] } == ["purchase", "purchase", "refund", "renewal", "purchase", "upgrade", "renewal"])
        #expect(
            events.map { $0[3] } == ["Subscribe", "Subscribe", "Refund", "Renew", "Subscribe", "Upgrade", "Renew"])
        #expect(events[2][11] == "-70.00")
        #expect(table.csv.hasPrefix("date,period,seq,appleEvent,event,"))
        #expect(table.svg().hasPrefix("<svg"))
    }

    /// CSV quotes a field holding a comma, a quote or any line break, CR and CRLF included.
    @Test func csvQuotesEveryFieldThatWouldSplitARecord() {
        let table = ReportTable(
            kind: "test", columns: ["a", "b"],
            rows: [
                [.text("x,y"), .text("say \"hi\"")], [.text("one\r\ntwo"), .text("cr\ronly")],
                [.text("plain"), .integer(3)],
            ])
        #expect(table.csv == "a,b\n\"x,y\",\"say \"\"hi\"\"\"\n\"one\r\ntwo\",\"cr\ronly\"\nplain,3\n")
    }

    /// A void of user 1's March renewal (record 3) and of user 2's refund (record 5): as known now, neither is
    /// sold, refunded nor listed; as known before the voids, both are.
    @Test func voidedRecordsCountInNoReport() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let before = try ledger.entry(seq: 7).recordedAt
        usleep(5_000)  // the voids are recorded after it
        for seq: UInt64 in [3, 5] { _ = try ledger.void(seq: seq, reason: "by mistake", operatorName: "ops") }
        let months = ReportPeriod(from: Self.at("2026-01-01"), to: Self.at("2026-04-01"), unit: .month)
        let sales = try ledger.report(.sales, period: months).texts
        #expect(!sales.contains { $0[0] == "2026-03" }, "\(sales)")
        #expect(sales.first { $0[1] == "com.visla.gps.annual_2" }?[8] == "0", "the refund is voided")
        let events = try ledger.report(
            .events, period: ReportPeriod(from: Self.at("2026-01-01"), to: Self.at("2026-04-01"), unit: .day)
        ).texts
        #expect(events.map { $0[4] } == ["purchase", "purchase", "renewal", "purchase", "upgrade"])
        let active = try ledger.report(
            .active, period: ReportPeriod(from: Self.at("2026-01-25"), to: Self.at("2026-01-26"), unit: .day)
        ).texts
        #expect(active.first.map { Array($0[5...6]) } == ["2", "3"], "user 2 not refunded")
        let then = try ledger.report(.sales, period: months, knownAt: before).texts
        #expect(then.contains { $0[0] == "2026-03" })
    }
}
