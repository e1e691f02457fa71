extension Instant {
    /// This instant moved by whole periods on the UTC calendar, as the App Store bills them: months keep the
    /// day of the month (clamped to the month's last day, so Jan 31 + 1 month is Feb 28 or 29) and the time of
    /// day; days are 24 hours.
    ///
    /// - Returns: nil when the period has neither months nor days, or the result is out of range.
    public func adding(_ period: Period, count: Int = 1) -> Instant? {
        if let months = period.months {
            let (total, overflow) = months.multipliedReportingOverflow(by: count)
            return overflow ? nil : addingMonths(total)
        }
        if let days = period.days {
            let (total, overflow) = Int64(days).multipliedReportingOverflow(by: Int64(count))
            let (delta, overflow2) = total.multipliedReportingOverflow(by: 86_400_000)
            guard !overflow, !overflow2 else { return nil }
            let (sum, overflow3) = milliseconds.addingReportingOverflow(delta)
            return overflow3 ? nil : Instant(milliseconds: sum)
        }
        return nil
    }

    private func addingMonths(_ months: Int) -> Instant? {
        // Keep well inside the range where the civil-date arithmetic cannot overflow.
        let limit: Int64 = 1 << 52
        guard milliseconds > -limit, milliseconds < limit, months > -(1 << 30), months < 1 << 30 else { return nil }
        var days = milliseconds / 86_400_000
        var rest = milliseconds % 86_400_000
        if rest < 0 {
            rest += 86_400_000
            days -= 1
        }
        let (year, month, day) = CivilDate.fromDays(days)
        let monthIndex = year * 12 + Int64(month - 1) + Int64(months)
        let newYear = monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12
        let newMonth = Int(monthIndex - newYear * 12) + 1
        let newDay = min(day, CivilDate.daysInMonth(year: newYear, month: newMonth))
        let newDays = CivilDate.toDays(year: newYear, month: newMonth, day: newDay)
        return Instant(milliseconds: newDays * 86_400_000 + rest)
    }
}
