import LedgerCore

/// The simulator's time model: how long periods, grace and billing retry last, in production (calendar
/// months) or in the sandbox (compressed by a ``SandboxRate``).
public struct SimulationClock: Sendable, Hashable {
    /// Milliseconds in a real day.
    public static let day: Int64 = 86_400_000

    /// The sandbox rate, or nil for production time.
    public let sandboxRate: SandboxRate?

    /// Creates a clock: production time when `sandboxRate` is nil.
    public init(sandboxRate: SandboxRate?) {
        self.sandboxRate = sandboxRate
    }

    /// The end (exclusive) of a period of `period` that starts at `start`.
    ///
    /// In production a month is a calendar month on the same day of the month (clamped to the month's last
    /// day, as the App Store bills on 31 January → 28 February); in the sandbox it is the rate's fixed length.
    public func end(of period: Period, from start: Instant) -> Instant {
        if let rate = sandboxRate {
            let months = period.months ?? max(1, (period.days ?? 30) / 30)
            return start.adding(milliseconds: rate.duration(months: months))
        }
        if let months = period.months { return Self.adding(months: months, to: start) }
        return start.adding(milliseconds: Int64(period.days ?? 30) * Self.day)
    }

    /// A real-time duration as this clock runs it: itself in production, compressed in the sandbox (never
    /// below `floor` milliseconds).
    public func scaled(_ milliseconds: Int64, floor: Int64 = 1) -> Int64 {
        guard let rate = sandboxRate else { return milliseconds }
        return max(floor, rate.compress(milliseconds))
    }

    /// `days` real days as this clock runs them.
    public func days(_ days: Double) -> Int64 {
        scaled(Int64(days * Double(Self.day)))
    }

    /// Apple's billing grace period for a product's period: 6 days for weekly plans, 16 days otherwise.
    public func gracePeriod(for period: Period) -> Int64 {
        let isWeekly = period.months == nil && (period.days ?? 30) <= 7
        return scaled((isWeekly ? 6 : 16) * Self.day)
    }

    /// How long Apple retries a failed renewal: 60 days.
    public var billingRetryPeriod: Int64 { scaled(60 * Self.day) }

    /// The distance a truth sample keeps from any event of its user, so that a sample never sits on an
    /// instant whose reading depends on signing jitter: an hour in production, 5 seconds in the sandbox.
    public var sampleMargin: Int64 { sandboxRate == nil ? 3_600_000 : 5_000 }

    /// `start` moved by whole calendar months, the day of the month clamped to the target month's length.
    public static func adding(months: Int, to start: Instant) -> Instant {
        let ms = start.milliseconds
        var days = ms / day
        var rest = ms % day
        if rest < 0 {
            rest += day
            days -= 1
        }
        let (year, month, dayOfMonth) = civil(fromDays: days)
        let total = year * 12 + Int64(month - 1) + Int64(months)
        let newYear = total >= 0 ? total / 12 : (total - 11) / 12
        let newMonth = Int(total - newYear * 12) + 1
        let clamped = min(dayOfMonth, daysIn(year: newYear, month: newMonth))
        return Instant(milliseconds: daysFrom(year: newYear, month: newMonth, day: clamped) * day + rest)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFrom(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date of days since 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }

    static func daysIn(year: Int64, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
