import LedgerCore

/// The buckets of a report: `[from, to)` cut by day, week (Sunday to Saturday, as App Store Connect), calendar
/// month or Apple's fiscal month, at midnight in UTC or in Pacific Time.
public struct ReportPeriod: Sendable, Hashable {
    /// How the range is cut.
    public enum Unit: String, Sendable, CaseIterable {
        /// One calendar day.
        case day
        /// Sunday to Saturday, as App Store Connect's weekly reports.
        case week
        /// One calendar month.
        case month
        /// One of Apple's fiscal months (5-4-4 weeks per quarter, the year ending on the last Saturday of September).
        case fiscalMonth = "fiscal-month"
    }

    /// Where days start.
    public enum TimeZone: String, Sendable, CaseIterable {
        /// Coordinated Universal Time.
        case utc
        /// US Pacific Time with daylight saving time, as App Store Connect's Sales and Trends.
        case pacific

        /// How a label names the zone.
        public var title: String { self == .utc ? "UTC" : "Pacific Time" }
    }

    /// Start (inclusive).
    public var from: Instant
    /// End (exclusive).
    public var to: Instant
    /// Bucket size.
    public var unit: Unit
    /// The zone whose midnights cut the buckets.
    public var timeZone: TimeZone

    /// Creates a period.
    public init(from: Instant, to: Instant, unit: Unit, timeZone: TimeZone = .utc) {
        self.from = from
        self.to = to
        self.unit = unit
        self.timeZone = timeZone
    }

    /// The buckets, each `[start, end)`, clipped to the period.
    public var buckets: [(start: Instant, end: Instant)] {
        var result: [(Instant, Instant)] = []
        var start = from
        while start < to, result.count < 100_000 {
            let end = min(next(after: start), to)
            result.append((start, end))
            start = end
        }
        return result
    }

    /// The local day number holding a UTC instant.
    func localDay(_ instant: Instant) -> Int64 {
        ReportCalendar.floorDiv(localMilliseconds(instant.milliseconds), ReportCalendar.dayMilliseconds)
    }

    func localMilliseconds(_ utc: Int64) -> Int64 {
        timeZone == .utc ? utc : utc + ReportCalendar.pacificOffset(utc: utc)
    }

    /// The UTC instant of a local day's midnight (midnight is never in a daylight saving gap).
    func midnight(_ day: Int64) -> Instant {
        let local = day * ReportCalendar.dayMilliseconds
        guard timeZone == .pacific else { return Instant(milliseconds: local) }
        let daylight = local + 7 * ReportCalendar.hourMilliseconds
        if ReportCalendar.pacificOffset(utc: daylight) == -7 * ReportCalendar.hourMilliseconds {
            return Instant(milliseconds: daylight)
        }
        return Instant(milliseconds: local + 8 * ReportCalendar.hourMilliseconds)
    }

    /// The start of the bucket after the one holding `instant`.
    func next(after instant: Instant) -> Instant {
        guard instant.milliseconds < Int64.max / 2, instant.milliseconds > Int64.min / 2 else { return .distantFuture }
        let day = localDay(instant)
        switch unit {
        case .day:
            return midnight(day + 1)
        case .week:
            return midnight(day - Int64(ReportCalendar.weekday(day)) + 7)
        case .month:
            let (year, month, _) = ReportCalendar.civil(day)
            return midnight(
                month == 12
                    ? ReportCalendar.days(year: year + 1, month: 1, day: 1)
                    : ReportCalendar.days(year: year, month: month + 1, day: 1))
        case .fiscalMonth:
            return midnight(ReportCalendar.fiscalMonth(of: day).end)
        }
    }

    /// A bucket's label: `2026-03-01` (day; week: the day it starts), `2026-03` (month), `FY2026-06 Mar`
    /// (Apple's fiscal month 6 of fiscal year 2026, named for the calendar month it mostly covers).
    public func label(_ start: Instant) -> String {
        let day = localDay(start)
        let date = ReportCalendar.dateText(day)
        switch unit {
        case .day, .week: return date
        case .month: return String(date.prefix(7))
        case .fiscalMonth:
            let fiscal = ReportCalendar.fiscalMonth(of: day)
            let number = fiscal.month < 10 ? "0\(fiscal.month)" : "\(fiscal.month)"
            return "FY\(fiscal.year)-\(number) \(ReportCalendar.fiscalMonthNames[fiscal.month - 1])"
        }
    }

    /// `by month (Pacific Time)`.
    public var title: String {
        let unitName = unit == .fiscalMonth ? "Apple fiscal month" : unit.rawValue
        return "by \(unitName) (\(timeZone.title))"
    }
}
