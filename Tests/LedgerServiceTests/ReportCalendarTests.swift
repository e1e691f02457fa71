import LedgerCore
import LedgerService
import LedgerTesting
import Testing

/// Buckets as App Store Connect cuts them: Pacific days with daylight saving time, weeks from Sunday, Apple's
/// fiscal months (5-4-4 weeks per quarter, the year ending on the last Saturday of September).
@Suite struct ReportCalendarTests {
    let directory = TemporaryDirectory()

    static func at(_ text: String) -> Instant { ReportFixtures.at(text) }

    func spans(_ period: ReportPeriod) -> [[String]] {
        period.buckets.map { [period.label($0.start), $0.start.iso8601, $0.end.iso8601] }
    }

    /// A purchase at 03:00 UTC on January 2 is made at 19:00 on January 1 in Pacific Time (UTC−8).
    @Test func aPurchaseJustAfterMidnightUTCIsTheDayBeforeInPacificTime() throws {
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        defer { ledger.close() }
        _ = try ledger.append([
            (
                ReportFixtures.record(
                    user: 1, otid: "1", txn: "10", product: "com.visla.gps.monthly_1", type: "SUBSCRIBED",
                    subtype: "INITIAL_BUY", purchase: "2026-01-02T03:00:00Z", expires: "2026-02-02T03:00:00Z",
                    price: 4900), nil
            )
        ])
        let pacific = ReportPeriod(
            from: Self.at("2026-01-01T08:00:00Z"), to: Self.at("2026-01-03T08:00:00Z"), unit: .day, timeZone: .pacific)
        #expect(spans(pacific).map(\.[0]) == ["2026-01-01", "2026-01-02"])
        #expect(try ledger.report(.sales, period: pacific).texts.map(\.[0]) == ["2026-01-01"])
        let utc = ReportPeriod(from: Self.at("2026-01-01T00:00:00Z"), to: Self.at("2026-01-03T00:00:00Z"), unit: .day)
        #expect(try ledger.report(.sales, period: utc).texts.map(\.[0]) == ["2026-01-02"])
    }

    /// 2026: daylight saving time from Sunday March 8 (a 23-hour day) to Sunday November 1 (a 25-hour day).
    @Test func pacificDaysFollowDaylightSavingTime() {
        let march = ReportPeriod(
            from: Self.at("2026-03-07T08:00:00Z"), to: Self.at("2026-03-10T07:00:00Z"), unit: .day, timeZone: .pacific)
        #expect(
            spans(march) == [
                ["2026-03-07", "2026-03-07T08:00:00Z", "2026-03-08T08:00:00Z"],
                ["2026-03-08", "2026-03-08T08:00:00Z", "2026-03-09T07:00:00Z"],
                ["2026-03-09", "2026-03-09T07:00:00Z", "2026-03-10T07:00:00Z"],
            ])
        let november = ReportPeriod(
            from: Self.at("2026-10-31T07:00:00Z"), to: Self.at("2026-11-03T08:00:00Z"), unit: .day, timeZone: .pacific)
        #expect(
            spans(november) == [
                ["2026-10-31", "2026-10-31T07:00:00Z", "2026-11-01T07:00:00Z"],
                ["2026-11-01", "2026-11-01T07:00:00Z", "2026-11-02T08:00:00Z"],
                ["2026-11-02", "2026-11-02T08:00:00Z", "2026-11-03T08:00:00Z"],
            ])
        // A Pacific month holds the switch: March 2026 is 31 days less one hour.
        let month = ReportPeriod(
            from: Self.at("2026-03-01T08:00:00Z"), to: Self.at("2026-04-01T07:00:00Z"), unit: .month,
            timeZone: .pacific)
        #expect(spans(month) == [["2026-03", "2026-03-01T08:00:00Z", "2026-04-01T07:00:00Z"]])
    }

    /// Weeks run Sunday to Saturday; 2026-01-04 is a Sunday.
    @Test func weeksStartOnSunday() {
        let period = ReportPeriod(from: Self.at("2026-01-01"), to: Self.at("2026-01-20"), unit: .week)
        #expect(spans(period).map(\.[0]) == ["2026-01-01", "2026-01-04", "2026-01-11", "2026-01-18"])
    }

    /// Apple's fiscal 2024 (as its payment calendar): November Nov 5 – Dec 2, 2023; December Dec 3 – Dec 30;
    /// January Dec 31 – Feb 3, 2024 (5 weeks); February Feb 4 – Mar 2.
    @Test func fiscalMonthsAre544WeeksPerQuarter() {
        let period = ReportPeriod(
            from: Self.at("2023-12-01"), to: Self.at("2024-03-01"), unit: .fiscalMonth)
        #expect(
            spans(period) == [
                ["FY2024-02 Nov", "2023-12-01T00:00:00Z", "2023-12-03T00:00:00Z"],
                ["FY2024-03 Dec", "2023-12-03T00:00:00Z", "2023-12-31T00:00:00Z"],
                ["FY2024-04 Jan", "2023-12-31T00:00:00Z", "2024-02-04T00:00:00Z"],
                ["FY2024-05 Feb", "2024-02-04T00:00:00Z", "2024-03-01T00:00:00Z"],
            ])
    }

    /// Fiscal 2023 has 53 weeks (Sep 25, 2022 – Sep 30, 2023): December takes the extra week (Nov 27 – Dec 31).
    /// Fiscal 2026 starts on Sunday September 28, 2025, after the last Saturday of September.
    @Test func fiscalYearsEndOnTheLastSaturdayOfSeptember() {
        let december = ReportPeriod(from: Self.at("2022-11-27"), to: Self.at("2023-01-02"), unit: .fiscalMonth)
        #expect(
            spans(december) == [
                ["FY2023-03 Dec", "2022-11-27T00:00:00Z", "2023-01-01T00:00:00Z"],
                ["FY2023-04 Jan", "2023-01-01T00:00:00Z", "2023-01-02T00:00:00Z"],
            ])
        let turn = ReportPeriod(from: Self.at("2025-09-27"), to: Self.at("2025-09-29"), unit: .fiscalMonth)
        #expect(spans(turn).map(\.[0]) == ["FY2025-12 Sep", "FY2026-01 Oct"])
        #expect(spans(turn)[1][1] == "2025-09-28T00:00:00Z")
    }
}
