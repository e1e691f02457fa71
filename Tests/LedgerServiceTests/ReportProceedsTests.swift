import LedgerCore
import LedgerService
import LedgerTesting
import Testing

/// Proceeds by Apple's commission: 30% until a year of paid service, 15% after it, the days kept across a lapse
/// of up to 60 days; 15% throughout under the Small Business Program; refunds negative at the same rate.
@Suite struct ReportProceedsTests {
    let directory = TemporaryDirectory()

    func ledger(_ records: [LedgerRecord]) throws -> Ledger {
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        _ = try ledger.append(records.map { ($0, nil) })
        return ledger
    }

    func sales(_ ledger: Ledger, _ from: String, _ to: String, _ options: ReportOptions = ReportOptions()) throws
        -> [[String]]
    {
        try ledger.report(
            .sales,
            period: ReportPeriod(from: ReportFixtures.at(from), to: ReportFixtures.at(to), unit: .month),
            options: options
        ).texts
    }

    /// Bought 2026-01-01, renewed on the first of each month. The 11th renewal (2026-12-01, the 12th charge) comes
    /// after 334 days of paid service: 30%, proceeds 4.90 × 0.70 = 3.43. The 12th renewal (2027-01-01, the 13th
    /// charge) comes after 365 days: 15%, 4.90 × 0.85 = 4.165, rounded to the cent
    /// half away from zero: 4.17; the 13th renewal too.
    @Test func theCommissionFallsTo15PercentAfterAYearOfPaidService() throws {
        let ledger = try ledger(ReportFixtures.monthly(user: 1, otid: "1", first: (2026, 1), charges: 14))
        defer { ledger.close() }
        let rows = try sales(ledger, "2026-11-01T00:00:00Z", "2027-03-01T00:00:00Z")
        #expect(
            rows.map { [$0[0], $0[2], $0[9], $0[10], $0[13]] } == [
                ["2026-11", "ITA", "1", "4.90", "3.43"],
                ["2026-12", "ITA", "1", "4.90", "3.43"],
                ["2027-01", "ITA", "1", "4.90", "4.17"],
                ["2027-02", "ITA", "1", "4.90", "4.17"],
            ])
    }

    @Test func theSmallBusinessProgramIs15PercentThroughout() throws {
        let ledger = try ledger(ReportFixtures.monthly(user: 1, otid: "1", first: (2026, 1), charges: 2))
        defer { ledger.close() }
        let rows = try sales(
            ledger, "2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z", ReportOptions(commission: .smallBusiness))
        #expect(rows.map(\.[13]) == ["4.17", "4.17"])
    }

    /// 12 monthly charges in 2026 (365 days), then a lapse: back within 60 days (2027-03-02, 60 days after
    /// 2027-01-01) keeps the year: 15%; a second subscription back after 61 days starts again: 30%.
    @Test func aLapseOfUpTo60DaysKeepsTheDaysOfPaidService() throws {
        var records = ReportFixtures.monthly(user: 1, otid: "1", first: (2026, 1), charges: 12)
        records += ReportFixtures.monthly(user: 2, otid: "2", first: (2026, 1), charges: 12)
        records.append(
            ReportFixtures.record(
                user: 1, otid: "1", txn: "1-back", product: "com.visla.gps.monthly_1", type: "SUBSCRIBED",
                subtype: "RESUBSCRIBE", purchase: "2027-03-02T00:00:00Z", expires: "2027-04-02T00:00:00Z",
                price: 4900, storefront: "ITA"))
        records.append(
            ReportFixtures.record(
                user: 2, otid: "2", txn: "2-back", product: "com.visla.gps.monthly_1", type: "SUBSCRIBED",
                subtype: "RESUBSCRIBE", purchase: "2027-03-03T00:00:00Z", expires: "2027-04-03T00:00:00Z",
                price: 4900, storefront: "FRA"))
        let ledger = try ledger(records)
        defer { ledger.close() }
        let rows = try sales(ledger, "2027-03-01T00:00:00Z", "2027-04-01T00:00:00Z")
        #expect(rows.map { [$0[2], $0[13]] } == [["FRA", "3.43"], ["ITA", "4.17"]])
    }

    /// An annual plan bought 2026-01-02 and upgraded on 2026-01-28: Apple's notification of the upgrade carries
    /// only the new transaction. 26 days of paid service, not the replaced year: the upgrade is at 30%, 80.00 ×
    /// 0.70 = 56.00. Its renewal on 2027-01-28 comes after 26 + 365 days: 15%, 80.00 × 0.85 = 68.00.
    @Test func anUpgradeCutsThePeriodItReplacesThoughOnlyTheNewTransactionIsSent() throws {
        let ledger = try ledger([
            ReportFixtures.record(
                user: 1, otid: "1", txn: "11", product: "com.visla.gps.annual_1", type: "SUBSCRIBED",
                subtype: "INITIAL_BUY", purchase: "2026-01-02T00:00:00Z", expires: "2027-01-02T00:00:00Z",
                price: 70_000, storefront: "ITA"),
            ReportFixtures.record(
                user: 1, otid: "1", txn: "12", product: "com.visla.gps.annual_2", type: "DID_CHANGE_RENEWAL_PREF",
                subtype: "UPGRADE", purchase: "2026-01-28T00:00:00Z", expires: "2027-01-28T00:00:00Z",
                price: 80_000, storefront: "ITA", reason: "PURCHASE"),
            ReportFixtures.record(
                user: 1, otid: "1", txn: "13", product: "com.visla.gps.annual_2", type: "DID_RENEW",
                purchase: "2027-01-28T00:00:00Z", expires: "2028-01-28T00:00:00Z", price: 80_000, storefront: "ITA",
                reason: "RENEWAL"),
        ])
        defer { ledger.close() }
        let rows = try sales(ledger, "2026-01-01T00:00:00Z", "2027-02-01T00:00:00Z")
        #expect(
            rows.map { [$0[0], $0[1], $0[13]] } == [
                ["2026-01", "com.visla.gps.annual_1", "49.00"],
                ["2026-01", "com.visla.gps.annual_2", "56.00"],
                ["2027-01", "com.visla.gps.annual_2", "68.00"],
            ])
    }

    /// A refund is a negative unit with negative customer price and proceeds, in the bucket of its revocation,
    /// at the commission of the transaction it refunds.
    @Test func aRefundIsANegativeUnitInTheMonthOfItsRevocation() throws {
        let ledger = try ledger([
            ReportFixtures.record(
                user: 1, otid: "1", txn: "10", product: "com.visla.gps.annual_2", type: "SUBSCRIBED",
                subtype: "INITIAL_BUY", purchase: "2026-01-10T00:00:00Z", expires: "2027-01-10T00:00:00Z",
                price: 70_000, storefront: "DEU"),
            ReportFixtures.record(
                user: 1, otid: "1", txn: "10", product: "com.visla.gps.annual_2", type: "REFUND",
                purchase: "2026-01-10T00:00:00Z", expires: "2027-01-10T00:00:00Z", price: 70_000, storefront: "DEU",
                revoked: "2026-02-03T00:00:00Z", signed: "2026-02-03T00:00:00Z"),
        ])
        defer { ledger.close() }
        let rows = try sales(ledger, "2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z")
        #expect(
            rows.map { [$0[0], $0[4], $0[8], $0[9], $0[10], $0[11], $0[12], $0[13]] } == [
                ["2026-01", "1", "0", "1", "70.00", "0.00", "70.00", "49.00"],
                ["2026-02", "0", "-1", "-1", "0.00", "-70.00", "-70.00", "-49.00"],
            ])
        let svg = try ledger.report(
            .sales,
            period: ReportPeriod(
                from: ReportFixtures.at("2026-01-01T00:00:00Z"), to: ReportFixtures.at("2026-03-01T00:00:00Z"),
                unit: .month)
        ).svg()
        #expect(svg.contains("refunds: −70 EUR"), "the refund is drawn below zero")
    }
}
