import LedgerCore

/// Apple's commission on each sale, from the subscription's days of paid service.
///
/// The rule implemented: each transaction of a subscription (one original transaction id) adds its paid days —
/// from its purchase to its expiry, cut where the subscription's next transaction begins (an upgrade replaces a
/// period before its end) or at a full refund, never counting a day twice; free trials and unpaid offers add
/// none. A transaction purchased once the subscription has accumulated 365 days of paid service is charged 15%,
/// else 30%. When the subscription lapses for more than 60 days (from the end of
/// its last paid day to the next purchase), the days accumulated so far are lost and counting starts again. Under
/// the Small Business Program every transaction is charged 15%. Proceeds are the customer price less the
/// commission, rounded half away from zero to the cent per transaction, before any tax Apple withholds.
enum SalesProceeds {
    /// The commission in the first year of paid service, in percent.
    static let firstYear: Int64 = 30
    /// The commission after a year of retained paid service, and under the Small Business Program.
    static let afterOneYear: Int64 = 15
    /// A year of paid service.
    static let yearOfService: Int64 = 365 * ReportCalendar.dayMilliseconds
    /// The longest lapse that keeps the days of paid service.
    static let retentionGap: Int64 = 60 * ReportCalendar.dayMilliseconds

    /// `price` less a commission of `commission` percent, rounded half away from zero to the cent (ten
    /// milliunits), as Apple states a unit's proceeds.
    static func proceeds(_ price: Int64, commission: Int64) -> Int64 {
        let kept = price.multipliedReportingOverflow(by: 100 - commission).partialValue
        return (kept >= 0 ? (kept + 500) / 1000 : (kept - 500) / 1000) * 10
    }

    /// Per transaction id, the commission in percent that applies to it.
    static func commissions(_ transactions: [TransactionFacts], commission: ReportOptions.Commission) -> [String: Int64]
    {
        var result: [String: Int64] = [:]
        if commission == .smallBusiness {
            for transaction in transactions { result[transaction.transactionId] = afterOneYear }
            return result
        }
        let bySubscription = Dictionary(grouping: transactions, by: \.originalTransactionId)
        for (_, group) in bySubscription {
            let ordered = group.sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
            var accumulated: Int64 = 0
            var paidUntil: Int64?
            for (index, transaction) in ordered.enumerated() {
                let start = transaction.purchaseDate.milliseconds
                if let last = paidUntil, start - last > retentionGap { accumulated = 0 }
                result[transaction.transactionId] = accumulated >= yearOfService ? afterOneYear : firstYear
                // A period ends where the next transaction begins: an upgrade replaces one before its expiry, and
                // Apple's notification of it carries only the new transaction (the old one is never re-sent with
                // isUpgraded). Days not yet served when the next is bought are never counted.
                var end = transaction.expiresDate?.milliseconds ?? start
                if index + 1 < ordered.count { end = min(end, ordered[index + 1].purchaseDate.milliseconds) }
                if let revoked = transaction.revocationDate, !transaction.isFamilySharingRevocation,
                    transaction.revocationType != "REFUND_PRORATED"
                {
                    end = min(end, revoked.milliseconds)
                }
                let paid = (transaction.price ?? 0) > 0 && transaction.offerDiscountType != "FREE_TRIAL"
                let from = max(start, paidUntil ?? start)
                if paid, end > from { accumulated += end - from }
                if paid { paidUntil = max(paidUntil ?? end, end) }
            }
        }
        return result
    }
}
