/// An instant on the UTC time line, in whole milliseconds since the Unix epoch.
///
/// Apple's payloads carry every date in milliseconds; the ledger keeps that unit everywhere so no
/// precision is lost or invented. Intervals are half-open: a grant over `[start, end)` no longer
/// holds at `end`.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: Int64

    /// Creates an instant from milliseconds since the epoch.
    @inlinable public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// The earliest representable instant.
    public static let distantPast = Instant(milliseconds: .min)
    /// The latest representable instant.
    public static let distantFuture = Instant(milliseconds: .max)

    /// Earlier instants order first.
    @inlinable public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.milliseconds < rhs.milliseconds
    }

    /// This instant moved by a number of milliseconds (saturating).
    @inlinable public func adding(milliseconds delta: Int64) -> Instant {
        let (sum, overflow) = milliseconds.addingReportingOverflow(delta)
        if overflow { return delta > 0 ? .distantFuture : .distantPast }
        return Instant(milliseconds: sum)
    }

    /// The ISO 8601 form, e.g. `2026-03-01T00:00:00Z` (milliseconds shown only when non-zero).
    public var description: String { iso8601 }
}

extension Instant {
    /// ISO 8601 in UTC with `Z`; milliseconds appear only when non-zero.
    public var iso8601: String {
        let ms = milliseconds
        var days = ms / 86_400_000
        var rest = ms % 86_400_000
        if rest < 0 {
            rest += 86_400_000
            days -= 1
        }
        let (year, month, day) = CivilDate.fromDays(days)
        let hour = Int(rest / 3_600_000)
        let minute = Int(rest / 60_000 % 60)
        let second = Int(rest / 1000 % 60)
        let milli = Int(rest % 1000)
        var out = ""
        out.reserveCapacity(24)
        if year < 0 { out.append("-") }
        out.append(Self.pad(Int(abs(year)), 4))
        out.append("-")
        out.append(Self.pad(month, 2))
        out.append("-")
        out.append(Self.pad(day, 2))
        out.append("T")
        out.append(Self.pad(hour, 2))
        out.append(":")
        out.append(Self.pad(minute, 2))
        out.append(":")
        out.append(Self.pad(second, 2))
        if milli != 0 {
            out.append(".")
            out.append(Self.pad(milli, 3))
        }
        out.append("Z")
        return out
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width
            ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Parses the ledger's input forms: ISO 8601 (`2026-03-01T00:00:00Z`, `2026-03-01T00:00:00.5+01:00`,
    /// a bare date `2026-03-01` meaning midnight UTC) or an integer count of milliseconds since the epoch.
    ///
    /// Fractional seconds beyond milliseconds are truncated. Either form must fall in ``inputRange`` (the years
    /// 0000 to 9999, as ISO 8601 writes them), so that no arithmetic on an input instant can overflow. Returns
    /// nil for anything else.
    public init?(parsing text: String) {
        let trimmed = text.utf8
        guard !trimmed.isEmpty, trimmed.count <= 64 else { return nil }
        let value: Int64
        if let ms = Int64(text) {
            value = ms
        } else {
            var parser = ISO8601Parser(Array(trimmed))
            guard let parsed = parser.parse() else { return nil }
            value = parsed
        }
        self.init(inputMilliseconds: value)
    }

    /// An input instant given as milliseconds since the epoch; nil outside ``inputRange``.
    public init?(inputMilliseconds milliseconds: Int64) {
        guard Self.inputRange.contains(milliseconds) else { return nil }
        self.init(milliseconds: milliseconds)
    }

    /// The milliseconds an input instant may have: 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z.
    public static let inputRange: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999
}

/// Proleptic Gregorian calendar arithmetic (days since 1970-01-01).
enum CivilDate {
    /// Days since the epoch for a civil date.
    static func toDays(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date for days since the epoch.
    static func fromDays(_ z0: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (m <= 2 ? y + 1 : y, m, d)
    }

    static func daysInMonth(year: Int64, month: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

private struct ISO8601Parser {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func digits(_ count: Int) -> Int64? {
        guard index + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for _ in 0..<count {
            let b = bytes[index]
            guard b >= 48, b <= 57 else { return nil }
            value = value * 10 + Int64(b - 48)
            index += 1
        }
        return value
    }

    mutating func expect(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func parse() -> Int64? {
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2)
        else {
            return nil
        }
        guard (1...12).contains(month), day >= 1,
            day <= CivilDate.daysInMonth(year: year, month: Int(month))
        else { return nil }
        let days = CivilDate.toDays(year: year, month: Int(month), day: Int(day))
        if index == bytes.count { return days * 86_400_000 }
        guard expect(84) || expect(116) else { return nil }  // 'T' or 't'
        guard let hour = digits(2), expect(58), let minute = digits(2), expect(58),
            let second = digits(2),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var millis: Int64 = 0
        if expect(46) || expect(44) {  // '.' or ','
            var scale: Int64 = 100
            var any = false
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                millis += Int64(bytes[index] - 48) * scale
                scale /= 10
                index += 1
                any = true
            }
            guard any else { return nil }
        }
        var offsetMinutes: Int64 = 0
        if expect(90) || expect(122) {  // 'Z'
        } else if index < bytes.count, bytes[index] == 43 || bytes[index] == 45 {  // '+' '-'
            let sign: Int64 = bytes[index] == 45 ? -1 : 1
            index += 1
            guard let oh = digits(2) else { return nil }
            _ = expect(58)
            guard let om = digits(2), oh < 24, om < 60 else { return nil }
            offsetMinutes = sign * (oh * 60 + om)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offsetMinutes * 60
        return seconds * 1000 + millis
    }
}
