/// How fast subscriptions renew in Apple's sandbox: the per-tester "subscription renewal rate".
///
/// A rate fixes how long one month lasts; every period is a whole number of months (six months take six
/// times as long, a year twelve times), and Apple says the rate "also determines the length of Billing Retry
/// and Billing Grace Period", which the simulator compresses by the same factor.
///
/// | rate | monthly | 6 months | 1 year |
/// |---|---|---|---|
/// | `5m` (default) | 5 min | 30 min | 1 h |
/// | `30m` | 30 min | 3 h | 6 h |
/// | `1h` | 1 h | 6 h | 12 h |
/// | `30s` (Xcode only, not sandbox) | 30 s | 3 min | 6 min |
public struct SandboxRate: Hashable, Sendable, CustomStringConvertible {
    /// StoreKit's name of the rate, e.g. `monthlyRenewalEveryFiveMinutes`.
    public let name: String
    /// The short spelling accepted by `--sandbox-rate`, e.g. `5m`.
    public let shortName: String
    /// How long one month lasts, in milliseconds.
    public let monthMilliseconds: Int64

    private init(name: String, shortName: String, monthMilliseconds: Int64) {
        self.name = name
        self.shortName = shortName
        self.monthMilliseconds = monthMilliseconds
    }

    /// Monthly renews every five minutes: the classic default.
    public static let everyFiveMinutes = SandboxRate(
        name: "monthlyRenewalEveryFiveMinutes", shortName: "5m", monthMilliseconds: 300_000)
    /// Monthly renews every thirty minutes.
    public static let everyThirtyMinutes = SandboxRate(
        name: "monthlyRenewalEveryThirtyMinutes", shortName: "30m", monthMilliseconds: 1_800_000)
    /// Monthly renews every hour.
    public static let everyHour = SandboxRate(
        name: "monthlyRenewalEveryHour", shortName: "1h", monthMilliseconds: 3_600_000)
    /// Monthly renews every thirty seconds (StoreKit testing in Xcode only; the sandbox does not offer it).
    public static let everyThirtySeconds = SandboxRate(
        name: "monthlyRenewalEveryThirtySeconds", shortName: "30s", monthMilliseconds: 30_000)

    /// Every rate, fastest last.
    public static let all: [SandboxRate] = [.everyFiveMinutes, .everyThirtyMinutes, .everyHour, .everyThirtySeconds]

    /// Parses `5m`, `30m`, `1h`, `30s`, their long forms (`5min`, `60m`, `30sec`) or StoreKit's names.
    public init?(argument: String) {
        let key = argument.lowercased()
        let aliases: [String: SandboxRate] = [
            "5m": .everyFiveMinutes, "5min": .everyFiveMinutes, "5minutes": .everyFiveMinutes,
            "30m": .everyThirtyMinutes, "30min": .everyThirtyMinutes, "30minutes": .everyThirtyMinutes,
            "1h": .everyHour, "60m": .everyHour, "60min": .everyHour, "1hour": .everyHour, "hourly": .everyHour,
            "30s": .everyThirtySeconds, "30sec": .everyThirtySeconds, "30seconds": .everyThirtySeconds,
        ]
        if let rate = aliases[key] {
            self = rate
            return
        }
        guard let rate = Self.all.first(where: { $0.name.lowercased() == key }) else { return nil }
        self = rate
    }

    /// How long `months` months last at this rate.
    public func duration(months: Int) -> Int64 { monthMilliseconds * Int64(months) }

    /// Real time compressed by this rate: a real month (30 days) becomes ``monthMilliseconds``.
    public func compress(_ milliseconds: Int64) -> Int64 {
        let month: Int64 = 30 * 86_400_000
        let (product, overflow) = milliseconds.multipliedReportingOverflow(by: monthMilliseconds)
        if overflow { return Int64((Double(milliseconds) * Double(monthMilliseconds) / Double(month)).rounded()) }
        return product / month
    }

    /// The short spelling, e.g. `5m`.
    public var description: String { shortName }
}
