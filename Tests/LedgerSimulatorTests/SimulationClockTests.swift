import LedgerCore
import Testing

@testable import LedgerSimulator

@Test(arguments: [
    ("2026-01-31T10:00:00Z", 1, "2026-02-28T10:00:00Z"),
    ("2028-01-31T10:00:00Z", 1, "2028-02-29T10:00:00Z"),
    ("2026-12-15T00:00:00.250Z", 1, "2027-01-15T00:00:00.250Z"),
    ("2026-03-31T23:59:59Z", 6, "2026-09-30T23:59:59Z"),
    ("2026-02-28T08:00:00Z", 12, "2027-02-28T08:00:00Z"),
])
func calendarMonthsClampToTheMonthsLastDay(start: String, months: Int, expected: String) throws {
    let instant = try #require(Instant(parsing: start))
    #expect(SimulationClock.adding(months: months, to: instant).iso8601 == expected)
}

@Test func productionPeriodsAreCalendarMonths() throws {
    let clock = SimulationClock(sandboxRate: nil)
    let start = try #require(Instant(parsing: "2026-01-15T12:00:00Z"))
    #expect(clock.end(of: .monthly, from: start).iso8601 == "2026-02-15T12:00:00Z")
    #expect(clock.end(of: .semiannual, from: start).iso8601 == "2026-07-15T12:00:00Z")
    #expect(clock.end(of: .annual, from: start).iso8601 == "2027-01-15T12:00:00Z")
    #expect(clock.gracePeriod(for: .monthly) == 16 * 86_400_000)
    #expect(clock.billingRetryPeriod == 60 * 86_400_000)
}

@Test(arguments: [
    (SandboxRate.everyFiveMinutes, Int64(300_000), Int64(1_800_000), Int64(3_600_000)),
    (SandboxRate.everyThirtyMinutes, 1_800_000, 10_800_000, 21_600_000),
    (SandboxRate.everyHour, 3_600_000, 21_600_000, 43_200_000),
    (SandboxRate.everyThirtySeconds, 30_000, 180_000, 360_000),
])
func sandboxPeriodsFollowTheRenewalRate(rate: SandboxRate, monthly: Int64, semiannual: Int64, annual: Int64) {
    let clock = SimulationClock(sandboxRate: rate)
    let start = Instant(milliseconds: 1_000_000)
    #expect(clock.end(of: .monthly, from: start).milliseconds - start.milliseconds == monthly)
    #expect(clock.end(of: .semiannual, from: start).milliseconds - start.milliseconds == semiannual)
    #expect(clock.end(of: .annual, from: start).milliseconds - start.milliseconds == annual)
    // Grace (16 days) and billing retry (60 days) shrink by the same factor as a month (30 days).
    #expect(clock.gracePeriod(for: .monthly) == monthly * 16 / 30)
    #expect(clock.billingRetryPeriod == monthly * 2)
}

@Test(arguments: [
    ("5m", "monthlyRenewalEveryFiveMinutes"), ("5min", "monthlyRenewalEveryFiveMinutes"),
    ("30m", "monthlyRenewalEveryThirtyMinutes"), ("1h", "monthlyRenewalEveryHour"),
    ("60m", "monthlyRenewalEveryHour"), ("30s", "monthlyRenewalEveryThirtySeconds"),
    ("monthlyRenewalEveryHour", "monthlyRenewalEveryHour"),
    ("MonthlyRenewalEveryFiveMinutes", "monthlyRenewalEveryFiveMinutes"),
])
func sandboxRatesParseTheirSpellings(argument: String, name: String) {
    #expect(SandboxRate(argument: argument)?.name == name)
}

@Test(arguments: ["", "5", "10m", "daily", "monthlyRenewalEveryDay"])
func unknownSandboxRatesAreRefused(argument: String) {
    #expect(SandboxRate(argument: argument) == nil)
}
