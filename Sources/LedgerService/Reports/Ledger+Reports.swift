import LedgerCore
import LedgerSystem

/// The finance reports of `ledger report`, derived from the log alone. A data directory holds one
/// environment, so sandbox and production never mix.
public enum ReportKind: String, Sendable, CaseIterable {
    /// Units, customer price and proceeds by bucket, product, storefront and currency; refunds as negative units.
    case sales
    /// One row per record, with the name App Store Connect's Subscription Event report gives it.
    case events
    /// Active subscriptions and devices under contract at the end of each bucket, by product.
    case active
    /// Monthly recurring revenue at the end of each bucket from the prices charged, per currency.
    case mrr
    /// Churn rate: subscriptions active at a bucket's start and no longer at its end, over those active at its start.
    case churn
}

extension Ledger {
    /// Builds a report over `period`, counting only records appended by `knownAt` when given.
    /// - Throws: ``ServiceError`` `missingRate` when MRR is to be converted and a currency has no rate.
    public func report(
        _ kind: ReportKind, period: ReportPeriod, options: ReportOptions = ReportOptions(), knownAt: Instant? = nil
    ) throws(ServiceError) -> ReportTable {
        var builder = ReportBuilder(kind: kind, period: period, options: options, fold: fold)
        try forEachComponent { entries throws(ServiceError) in
            let known = knownAt.map { limit in entries.filter { $0.recordedAt <= limit } } ?? entries
            // What the voids known then take out counts in no report (the fold's own reports would drop it anyway).
            builder.add(component: EntitlementFold.withoutVoided(known), knownAt: knownAt)
        }
        return try builder.report()
    }
}

/// Accumulates one report over the ledger's components.
struct ReportBuilder {
    let kind: ReportKind
    let period: ReportPeriod
    let options: ReportOptions
    /// The fold, and through it the catalog versions: each figure takes the version in force at its instant.
    let fold: EntitlementFold
    let buckets: [(start: Instant, end: Instant)]
    var sales: [SalesKey: SalesRow] = [:]
    var events: [EventRow] = []
    /// Per bucket, per product: subscriptions and devices entitled at the bucket's end.
    var active: [[ActiveKey: ActiveRow]]
    /// Per bucket, per currency and product: the recurring revenue at the bucket's end in twelfths of a milliunit
    /// (exact for periods of 1, 2, 3, 4, 6 or 12 months) and the subscriptions paying it.
    var recurring: [[RecurringKey: (twelfths: Int64, subscriptions: Int64)]]
    /// Per bucket: subscriptions entitled just before its start, and of those, not entitled at its end.
    var churn: [(atStart: Int64, churned: Int64)]

    init(kind: ReportKind, period: ReportPeriod, options: ReportOptions, fold: EntitlementFold) {
        self.kind = kind
        self.period = period
        self.options = options
        self.fold = fold
        self.buckets = period.buckets
        self.active = Array(repeating: [:], count: buckets.count)
        self.recurring = Array(repeating: [:], count: buckets.count)
        self.churn = Array(repeating: (0, 0), count: buckets.count)
    }

    func bucket(of instant: Instant) -> Int? {
        guard instant >= period.from, instant < period.to else { return nil }
        // The last bucket starting at or before the instant.
        return max(buckets.partitioningIndex { $0.start > instant } - 1, 0)
    }

    /// The instant a point-in-time figure of bucket `index` is taken at: its last millisecond.
    func asOf(_ index: Int) -> Instant { buckets[index].end.adding(milliseconds: -1) }

    mutating func add(component entries: [LedgerEntry], knownAt: Instant?) {
        switch kind {
        case .sales: addSales(entries)
        case .events: addEvents(entries)
        case .active, .mrr: addSnapshots(entries, knownAt: knownAt)
        case .churn: addChurn(entries, knownAt: knownAt)
        }
    }

    /// The finished report: its table and charts.
    func report() throws(ServiceError) -> ReportTable {
        switch kind {
        case .sales: return salesReport()
        case .events: return eventsReport()
        case .active: return activeReport()
        case .mrr: return try mrrReport()
        case .churn: return churnReport()
        }
    }

    /// The stack a product belongs to in charts: its billing period or its device count, as the state gives them,
    /// else as the catalog version in force at `at` (the end of the bucket the figure belongs to) does.
    func stackName(productId: String, period: String?, devices: Int?, at: Instant) -> String {
        let product = fold.catalogs.catalog(at: at).product(id: productId)
        switch options.stack {
        case .period: return period ?? product?.period.name ?? "unknown"
        case .devices:
            guard let count = devices ?? product?.devices, count > 0 else { return "unknown" }
            return count == 1 ? "1 device" : "\(count) devices"
        }
    }

    /// Stack names in a stable order: billing periods short to long, device counts ascending, `unknown` last.
    static func stackOrder(_ names: some Sequence<String>) -> [String] {
        let rank = ["weekly": 0, "monthly": 1, "semiannual": 6, "annual": 12]
        return Set(names).sorted { lhs, rhs in
            func key(_ name: String) -> (Int, Int, String) {
                if name == "unknown" { return (2, 0, name) }
                if let value = rank[name] { return (0, value, name) }
                if let count = Int(name.prefix { $0.isNumber }) { return (0, count, name) }
                return (1, 0, name)
            }
            return key(lhs) < key(rhs)
        }
    }
}
