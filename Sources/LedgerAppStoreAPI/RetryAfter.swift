/// A `Retry-After` header's value (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date, read as the
/// milliseconds to wait from `now`. HTTP-dates are accepted in all three forms RFC 9110 §5.6.7 obliges a
/// recipient to take: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and ANSI C's asctime (`Sun Nov  6 08:49:37 1994`). A date in the past
/// waits nothing; anything else is nil (the caller's own backoff applies).
public enum RetryAfter {
    /// The pause `value` asks for, in milliseconds from `now` (ms since the epoch), or nil when unreadable.
    public static func milliseconds(_ value: String, now: Int64) -> Int64? {
        let text = value.trimmingASCIISpaces
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // delay-seconds: 1*DIGIT; a number too large to hold is "a very long time".
            return Int64(text).map { $0 > Int64.max / 1000 ? Int64.max : $0 * 1000 } ?? Int64.max
        }
        guard let date = httpDate(text) else { return nil }
        return max(0, date - now)
    }

    /// An HTTP-date as milliseconds since the epoch, nil when `text` is none of the three forms.
    public static func httpDate(_ text: String) -> Int64? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let fields: (day: String, month: String, year: String, time: String)
        if words.count == 6, words[0].hasSuffix(","), words[5] == "GMT", words[1].count == 2, words[3].count == 4 {
            // IMF-fixdate: day-name "," SP day SP month SP year SP time-of-day SP GMT
            guard dayNames.contains(String(words[0].dropLast())) else { return nil }
            fields = (words[1], words[2], words[3], words[4])
        } else if words.count == 4, words[0].hasSuffix(","), words[3] == "GMT" {
            // rfc850-date: day-name-l "," SP date2 (DD-Mon-YY) SP time-of-day SP GMT
            guard longDayNames.contains(String(words[0].dropLast())) else { return nil }
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[0].count == 2, parts[2].count == 2, let yy = Int(parts[2]) else {
                return nil
            }
            // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
            fields = (parts[0], parts[1], String(yy < 70 ? 2000 + yy : 1900 + yy), words[2])
        } else if words.count == 5, dayNames.contains(words[0]) {
            // asctime-date: day-name SP month SP ( 2DIGIT / ( SP 1DIGIT )) SP time-of-day SP year
            guard (1...2).contains(words[2].count), words[4].count == 4 else { return nil }
            fields = (words[2], words[1], words[4], words[3])
        } else {
            return nil
        }
        guard let month = monthNames.firstIndex(of: fields.month).map({ $0 + 1 }),
            fields.day.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let day = Int(fields.day),
            fields.year.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let year = Int64(fields.year)
        else { return nil }
        let clock = fields.time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            let hour = Int64(clock[0]), let minute = Int64(clock[1]), let second = Int64(clock[2]),
            hour < 24, minute < 60, second <= 60, (1...daysIn(month, year)).contains(day)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: Int64(month), day: Int64(day))
        return ((days * 24 + hour) * 60 + minute) * 60_000 + min(second, 59) * 1000
    }

    static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let longDayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func daysIn(_ month: Int, _ year: Int64) -> Int {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension String {
    fileprivate var trimmingASCIISpaces: String {
        var bytes = Substring(self)
        while let first = bytes.first, first == " " || first == "\t" { bytes.removeFirst() }
        while let last = bytes.last, last == " " || last == "\t" { bytes.removeLast() }
        return String(bytes)
    }
}
