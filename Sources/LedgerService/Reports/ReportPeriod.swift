import LedgerCore

/// The buckets of a report: `[from, to)` cut by day, ISO week (Monday) or calendar month, in UTC.
public struct ReportPeriod: Sendable, Hashable {
    /// How the range is cut.
    public enum Unit: String, Sendable, CaseIterable {
        case day, week, month
    }

    /// Start (inclusive).
    public var from: Instant
    /// End (exclusive).
    public var to: Instant
    /// Bucket size.
    public var unit: Unit

    /// Creates a period.
    public init(from: Instant, to: Instant, unit: Unit) {
        self.from = from
        self.to = to
        self.unit = unit
    }

    /// The buckets, each `[start, end)`, clipped to the period.
    public var buckets: [(start: Instant, end: Instant)] {
        var result: [(Instant, Instant)] = []
        var start = from
        while start < to, result.count < 100_000 {
            let end = min(Self.next(after: start, unit: unit), to)
            result.append((start, end))
            start = end
        }
        return result
    }

    /// The start of the bucket after the one holding `instant`.
    static func next(after instant: Instant, unit: Unit) -> Instant {
        let day: Int64 = 86_400_000
        let dayStart = Instant(milliseconds: floorDiv(instant.milliseconds, day) * day)
        switch unit {
        case .day:
            return dayStart.adding(milliseconds: day)
        case .week:
            // 1970-01-01 was a Thursday: Monday-based weeks start 3 days later in the cycle.
            let days = floorDiv(instant.milliseconds, day)
            let weekday = ((days + 3) % 7 + 7) % 7  // 0 = Monday
            return Instant(milliseconds: (days - weekday + 7) * day)
        case .month:
            let monthStart = dayStart.adding(milliseconds: -day * Int64(dayOfMonth(dayStart) - 1))
            return monthStart.adding(.monthly) ?? .distantFuture
        }
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    static func dayOfMonth(_ instant: Instant) -> Int {
        Int(instant.iso8601.dropFirst(8).prefix(2)) ?? 1
    }

    /// A bucket's label: `2026-03-01` (day, week start) or `2026-03` (month).
    public func label(_ start: Instant) -> String {
        let date = String(start.iso8601.prefix(10))
        return unit == .month ? String(date.prefix(7)) : date
    }
}
