import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The wall clock's "now" as the server writes it: the `Date` header's IMF-fixdate and the access log's
/// ISO 8601 time. The clock itself is read through ``SystemClock``.
enum HTTPDate {
    /// The current time as an HTTP date (IMF-fixdate), e.g. `Sun, 01 Mar 2026 00:00:00 GMT`.
    static func now() -> String {
        let (t, _) = utcNow()
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(days[Int(t.tm_wday)]), \(pad(Int(t.tm_mday), 2)) \(months[Int(t.tm_mon)]) \(Int(t.tm_year) + 1900) "
            + "\(pad(Int(t.tm_hour), 2)):\(pad(Int(t.tm_min), 2)):\(pad(Int(t.tm_sec), 2)) GMT"
    }

    /// The current time in ISO 8601 UTC with milliseconds, e.g. `2026-03-01T00:00:00.123Z`.
    static func iso8601Now() -> String {
        let (t, milliseconds) = utcNow()
        return "\(pad(Int(t.tm_year) + 1900, 4))-\(pad(Int(t.tm_mon) + 1, 2))-\(pad(Int(t.tm_mday), 2))T"
            + "\(pad(Int(t.tm_hour), 2)):\(pad(Int(t.tm_min), 2)):\(pad(Int(t.tm_sec), 2)).\(pad(milliseconds, 3))Z"
    }

    /// The wall clock now, broken down in UTC, and its milliseconds.
    private static func utcNow() -> (tm, Int) {
        let time = SystemClock.wallTimespec()
        var seconds = time_t(time.tv_sec)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return (parts, Int(time.tv_nsec / 1_000_000))
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
