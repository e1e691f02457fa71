import LedgerCore
import LedgerSystem

/// The finance reports of `ledger report`, derived from the log alone. A data directory holds one
/// environment, so sandbox and production never mix.
public enum ReportKind: String, Sendable, CaseIterable {
    /// Units and sales by product and bucket: purchases, renewals, upgrades, downgrades, refunds with amounts.
    case sales
    /// One row per event, App Store Connect style.
    case events
    /// Active subscriptions and devices under contract at the start of each bucket.
    case active
    /// Monthly recurring revenue at the start of each bucket (annual / 12, semiannual / 6), per currency.
    case mrr
    /// Subscriptions entitled at a bucket's start and no longer at its end.
    case churn
}

extension Ledger {
    /// Builds a report over `period`, counting only records appended by `knownAt` when given.
    public func report(_ kind: ReportKind, period: ReportPeriod, knownAt: Instant? = nil) throws(ServiceError)
        -> ReportTable
    {
        var builder = ReportBuilder(kind: kind, period: period, fold: fold, catalog: catalog)
        try forEachComponent { entries throws(ServiceError) in
            let known = knownAt.map { limit in entries.filter { $0.recordedAt <= limit } } ?? entries
            // What the voids known then take out counts in no report (the fold's own reports would drop it anyway).
            builder.add(component: EntitlementFold.withoutVoided(known), knownAt: knownAt)
        }
        return builder.table()
    }
}

/// Accumulates one report over the ledger's components.
struct ReportBuilder {
    let kind: ReportKind
    let period: ReportPeriod
    let fold: EntitlementFold
    let catalog: Catalog
    let buckets: [(start: Instant, end: Instant)]
    var sales: [SalesKey: SalesRow] = [:]
    var events: [(at: Instant, seq: UInt64, cells: [ReportTable.Cell])] = []
    var series: [[Int64]]
    /// Per bucket, per currency: the recurring revenue in twelfths of a milliunit (each subscription's monthly
    /// share of its price, exact for periods of 1, 2, 3, 4, 6 or 12 months) and the subscriptions paying it.
    var recurring: [[String: (twelfths: Int64, subscriptions: Int64)]]

    init(kind: ReportKind, period: ReportPeriod, fold: EntitlementFold, catalog: Catalog) {
        self.kind = kind
        self.period = period
        self.fold = fold
        self.catalog = catalog
        self.buckets = period.buckets
        self.series = Array(repeating: [0, 0, 0, 0], count: buckets.count)
        self.recurring = Array(repeating: [:], count: buckets.count)
    }

    func bucket(of instant: Instant) -> Int? {
        guard instant >= period.from, instant < period.to else { return nil }
        // The last bucket starting at or before the instant.
        return max(buckets.partitioningIndex { $0.start > instant } - 1, 0)
    }

    mutating func add(component entries: [LedgerEntry], knownAt: Instant?) {
        switch kind {
        case .sales: addSales(entries)
        case .events: addEvents(entries)
        case .active, .mrr: addSnapshots(entries, knownAt: knownAt)
        case .churn: addChurn(entries, knownAt: knownAt)
        }
    }

    /// Per bucket start: [entitled subscriptions, devices, (unused), grace subscriptions], and the recurring revenue by
    /// currency. An operator's grant (`correction:…`) entitles without revenue: it is active, not recurring.
    mutating func addSnapshots(_ entries: [LedgerEntry], knownAt: Instant?) {
        for (index, bucket) in buckets.enumerated() {
            for owned in fold.subscriptions(in: entries, at: bucket.start, knownAt: knownAt)
            where owned.state.status.isEntitled {
                series[index][0] += 1
                series[index][1] += Int64(owned.state.devices)
                if owned.state.status == .gracePeriod { series[index][3] += 1 }
                if !owned.state.originalTransactionId.hasPrefix(EntitlementFold.grantPrefix),
                    let (currency, twelfths) = monthlyPrice(owned.state.productId)
                {
                    recurring[index][currency, default: (0, 0)].twelfths += twelfths
                    recurring[index][currency, default: (0, 0)].subscriptions += 1
                }
            }
        }
    }

    /// Per bucket: [entitled at start, of those not entitled at end].
    mutating func addChurn(_ entries: [LedgerEntry], knownAt: Instant?) {
        for (index, bucket) in buckets.enumerated() {
            let atStart = fold.subscriptions(in: entries, at: bucket.start, knownAt: knownAt)
                .filter { $0.state.status.isEntitled }.map(\.state.originalTransactionId)
            guard !atStart.isEmpty else { continue }
            let atEnd = Set(
                fold.subscriptions(in: entries, at: bucket.end, knownAt: knownAt)
                    .filter { $0.state.status.isEntitled }.map(\.state.originalTransactionId))
            series[index][0] += Int64(atStart.count)
            series[index][1] += Int64(atStart.filter { !atEnd.contains($0) }.count)
        }
    }

    /// The monthly share of a product's catalog price, in twelfths of a milliunit, and its currency; nil for a
    /// product the catalog does not know.
    func monthlyPrice(_ productId: String) -> (currency: String, twelfths: Int64)? {
        guard let product = catalog.product(id: productId) else { return nil }
        let twelfths = product.price.milliunits.multipliedReportingOverflow(by: 12).partialValue
        if let months = product.period.months, months > 0 { return (product.price.currency, twelfths / Int64(months)) }
        if let days = product.period.days, days > 0 {
            return (product.price.currency, twelfths.multipliedReportingOverflow(by: 30).partialValue / Int64(days))
        }
        return nil
    }
}
