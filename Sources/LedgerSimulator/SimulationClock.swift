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

    /// `start` moved by whole calendar months, the day of the month clamped to the target month's length
    /// (the same calendar arithmetic the fold uses: `Instant.adding(_:count:)`).
    public static func adding(months: Int, to start: Instant) -> Instant {
        start.adding(.monthly, count: months) ?? start
    }
}
