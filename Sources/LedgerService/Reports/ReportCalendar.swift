import LedgerCore

/// Civil dates, Pacific Time and Apple's fiscal calendar, computed without a time zone database.
///
/// Days are counted from 1970-01-01 (day 0, a Thursday). Pacific Time follows the US rule in force since 2007:
/// daylight saving time (UTC−7) from the second Sunday of March at 02:00 local (10:00 UTC) to the first Sunday
/// of November at 02:00 local (09:00 UTC); standard time (UTC−8) otherwise. The rule is applied to every year.
enum ReportCalendar {
    static let dayMilliseconds: Int64 = 86_400_000
    static let hourMilliseconds: Int64 = 3_600_000

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    /// The day number of a civil date (proleptic Gregorian).
    static func days(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let shifted = Int64(month > 2 ? month - 3 : month + 9)
        let doy = (153 * shifted + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day number.
    static func civil(_ days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = Int(doy - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// 0 Sunday … 6 Saturday.
    static func weekday(_ days: Int64) -> Int {
        Int(((days + 4) % 7 + 7) % 7)
    }

    /// `2026-03-01`.
    static func dateText(_ days: Int64) -> String {
        let (year, month, day) = civil(days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(Int64(month), 2))-\(pad(Int64(day), 2))"
    }

    // MARK: Pacific Time

    /// The first instant of daylight saving time in `year` (second Sunday of March, 10:00 UTC).
    static func dstStart(_ year: Int64) -> Int64 {
        let first = days(year: year, month: 3, day: 1)
        let sunday = first + Int64((7 - weekday(first)) % 7) + 7
        return sunday * dayMilliseconds + 10 * hourMilliseconds
    }

    /// The first instant of standard time again in `year` (first Sunday of November, 09:00 UTC).
    static func dstEnd(_ year: Int64) -> Int64 {
        let first = days(year: year, month: 11, day: 1)
        let sunday = first + Int64((7 - weekday(first)) % 7)
        return sunday * dayMilliseconds + 9 * hourMilliseconds
    }

    /// Pacific Time's offset from UTC at a UTC instant, in milliseconds (−7 h or −8 h).
    static func pacificOffset(utc: Int64) -> Int64 {
        let year = civil(floorDiv(utc, dayMilliseconds)).year
        return utc >= dstStart(year) && utc < dstEnd(year) ? -7 * hourMilliseconds : -8 * hourMilliseconds
    }

    // MARK: Apple's fiscal calendar

    /// The last day (a Saturday) of Apple's fiscal year `year`: the last Saturday of September.
    static func fiscalYearEnd(_ year: Int64) -> Int64 {
        let september30 = days(year: year, month: 9, day: 30)
        return september30 - Int64((weekday(september30) - 6 + 7) % 7)
    }

    /// The fiscal year holding `day`, and its first day (the Sunday after the previous year's end).
    static func fiscalYear(of day: Int64) -> (year: Int64, start: Int64) {
        var year = civil(day).year
        if day > fiscalYearEnd(year) { year += 1 }
        return (year, fiscalYearEnd(year - 1) + 1)
    }

    /// The first day of each of the fiscal year's 12 months and the day after its end (13 values). Each quarter
    /// is 5-4-4 weeks; a 53-week year gives its extra week to the third month (December).
    static func fiscalMonthStarts(_ year: Int64) -> [Int64] {
        let start = fiscalYearEnd(year - 1) + 1
        let weeks = (fiscalYearEnd(year) - start + 1) / 7
        var pattern: [Int64] = [5, 4, 4, 5, 4, 4, 5, 4, 4, 5, 4, 4]
        if weeks == 53 { pattern[2] = 5 }
        var result = [start]
        for length in pattern { result.append(result.last! + length * 7) }
        return result
    }

    /// The fiscal month (1 = October … 12 = September) holding `day`, its year, and its first and next-month days.
    static func fiscalMonth(of day: Int64) -> (year: Int64, month: Int, start: Int64, end: Int64) {
        let (year, _) = fiscalYear(of: day)
        let starts = fiscalMonthStarts(year)
        let index = max(0, (starts.lastIndex { $0 <= day } ?? 0))
        let month = min(index, 11)
        return (year, month + 1, starts[month], starts[month + 1])
    }

    static let fiscalMonthNames = ["Oct", "Nov", "Dec", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep"]
}
