import LedgerCore

/// A product's row in the active report.
struct ActiveKey: Hashable {
    var productId: String
    var period: String
    var devices: Int
}

/// Subscriptions of one product at a bucket's end.
struct ActiveRow {
    var subscriptions: Int64 = 0
    var devices: Int64 = 0
    var inGracePeriod: Int64 = 0
}

/// A currency and product in the MRR report.
struct RecurringKey: Hashable {
    var currency: String
    var productId: String
}

extension ReportBuilder {
    /// Per bucket, at its last millisecond: every entitled subscription by product (an operator's grant,
    /// `correction:…`, too), and the recurring revenue of the paying ones: the last price Apple charged for the
    /// subscription by then, normalised per month (annual ÷ 12, semiannual ÷ 6); one whose last price is 0 (a free
    /// trial) pays none. A grant, a Family Sharing
    /// member's access and a non-renewing pass are active but not recurring revenue.
    mutating func addSnapshots(_ entries: [LedgerEntry], knownAt: Instant?) {
        let charged = Dictionary(
            grouping: Self.transactions(entries).map(\.0).filter { !$0.isFamilyShared && $0.price != nil },
            by: \.originalTransactionId)
        for index in buckets.indices {
            let at = asOf(index)
            let catalog = fold.catalogs.catalog(at: at)
            for owned in fold.subscriptions(in: entries, at: at, knownAt: knownAt)
            where owned.state.status.isEntitled {
                let state = owned.state
                let key = ActiveKey(
                    productId: state.productId, period: state.period ?? "unknown", devices: state.devices)
                active[index][key, default: ActiveRow()].subscriptions += 1
                active[index][key, default: ActiveRow()].devices += Int64(state.devices)
                if state.status == .gracePeriod { active[index][key, default: ActiveRow()].inGracePeriod += 1 }
                guard kind == .mrr, catalog.product(id: state.productId)?.kind != .nonRenewing,
                    let last = charged[state.originalTransactionId]?.last(where: { $0.purchaseDate <= at }),
                    let price = last.price, price > 0,
                    let months = monthlyDivisor(productId: last.productId, state: state, at: last.purchaseDate)
                else { continue }
                let twelfths = price.multipliedReportingOverflow(by: 12).partialValue
                let recurringKey = RecurringKey(currency: last.currency ?? "EUR", productId: state.productId)
                recurring[index][recurringKey, default: (0, 0)].twelfths += twelfths * 30 / months
                recurring[index][recurringKey, default: (0, 0)].subscriptions += 1
            }
        }
    }

    /// A product's billing period in thirtieths of a month (a month is 30; a week 7), as the catalog version in
    /// force at `at` (the charge's purchase) gives it; nil when unknown.
    func monthlyDivisor(productId: String, state: SubscriptionState, at: Instant) -> Int64? {
        let period =
            fold.catalogs.catalog(at: at).product(id: productId)?.period ?? state.period.flatMap(Period.init(named:))
        if let months = period?.months, months > 0 { return Int64(months) * 30 }
        if let days = period?.days, days > 0 { return Int64(days) }
        return nil
    }

    /// Per bucket: the subscriptions entitled at the last millisecond before it starts (the previous bucket's
    /// end), and of those, the ones not entitled at its own last millisecond.
    mutating func addChurn(_ entries: [LedgerEntry], knownAt: Instant?) {
        for index in buckets.indices {
            let atStart = fold.subscriptions(
                in: entries, at: buckets[index].start.adding(milliseconds: -1), knownAt: knownAt
            )
            .filter { $0.state.status.isEntitled }.map(\.state.originalTransactionId)
            guard !atStart.isEmpty else { continue }
            let atEnd = Set(
                fold.subscriptions(in: entries, at: asOf(index), knownAt: knownAt)
                    .filter { $0.state.status.isEntitled }.map(\.state.originalTransactionId))
            churn[index].atStart += Int64(atStart.count)
            churn[index].churned += Int64(atStart.filter { !atEnd.contains($0) }.count)
        }
    }
}
