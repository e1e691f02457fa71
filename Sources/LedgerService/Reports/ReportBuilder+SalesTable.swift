import LedgerCore

extension ReportBuilder {
    var labels: [String] { buckets.map { period.label($0.start) } }
    var xTitle: String { String(period.title.dropFirst(3)) }

    /// The sales table (one row per bucket, product, storefront and currency) and, per currency, a chart of the
    /// customer price and one of the proceeds, stacked, refunds below zero, with the net line.
    func salesReport() -> ReportTable {
        let rows = sales.sorted { $0.key < $1.key }.map { key, row -> [ReportTable.Cell] in
            [
                .text(period.label(buckets[key.bucket].start)), .text(key.productId), .text(key.storefront),
                .text(key.currency), .integer(row.purchases), .integer(row.renewals), .integer(row.upgrades),
                .integer(row.downgrades), .integer(-row.refunds),
                .integer(row.purchases + row.renewals + row.upgrades - row.refunds), .amount(row.sales),
                .amount(-row.refunded), .amount(row.sales - row.refunded), .amount(row.proceeds - row.proceedsRefunded),
            ]
        }
        var charts: [ReportChart] = []
        for currency in Set(sales.keys.map(\.currency)).sorted() {
            for (name, gross, refund) in [
                ("Sales", \SalesRow.sales, \SalesRow.refunded),
                ("Proceeds", \SalesRow.proceeds, \SalesRow.proceedsRefunded),
            ] {
                var stacks: [String: [Double]] = [:]
                var refunds = Array(repeating: 0.0, count: buckets.count)
                for (key, row) in sales where key.currency == currency {
                    let stack = stackName(productId: key.productId, period: nil, devices: nil, at: asOf(key.bucket))
                    stacks[stack, default: Array(repeating: 0, count: buckets.count)][key.bucket] +=
                        Double(row[keyPath: gross]) / 1000
                    refunds[key.bucket] -= Double(row[keyPath: refund]) / 1000
                }
                var series = Self.stackOrder(stacks.keys).map { ReportChart.Series(name: $0, values: stacks[$0]!) }
                series.append(ReportChart.Series(name: "refunds", values: refunds, color: ReportChart.lossColor))
                let net = buckets.indices.map { index in series.reduce(0) { $0 + $1.values[index] } }
                charts.append(
                    ReportChart(
                        title: "\(name) (\(currency)), \(period.title), stacked by \(options.stack.rawValue)",
                        unit: currency, xTitle: xTitle, labels: labels, series: series,
                        net: ReportChart.Series(name: "net of refunds", values: net)))
            }
        }
        let commission =
            options.commission == .standard
            ? "Apple's commission is 30% until the subscription has 365 days of paid service, then 15%; the days are "
                + "kept across a lapse of up to 60 days (from the end of the last paid period to the next purchase) "
                + "and lost after a longer one; free trials add none"
            : "Apple's commission is 15% throughout (App Store Small Business Program)"
        return ReportTable(
            kind: kind.rawValue,
            columns: [
                "period", "productId", "storefront", "currency", "purchases", "renewals", "upgrades", "downgrades",
                "refunds", "units", "sales", "refunded", "net", "proceeds",
            ], rows: rows, title: "Sales, \(period.title)",
            notes: [
                "Each transaction once, in the bucket of its purchase date, at the customer price Apple signed on it, "
                    + "in its currency and storefront (ISO 3166-1 alpha-3); a Family Sharing member's transaction is "
                    + "no sale.",
                "Refunds are negative units, customer price and proceeds in the bucket of their revocation date "
                    + "(a prorated refund by its percentage). units = purchases + renewals + upgrades + refunds.",
                "proceeds = customer price less Apple's commission (rounded to the cent per transaction), net of "
                    + "refunds, before any tax Apple withholds. "
                    + commission + ".",
            ], charts: charts)
    }

    /// The events table, and a chart of Apple's events per bucket (cancellations and refunds below zero).
    func eventsReport() -> ReportTable {
        let ordered = events.sorted { ($0.at, $0.seq) < ($1.at, $1.seq) }
        var counts: [String: [Double]] = [:]
        for event in ordered where !event.appleEvent.isEmpty {
            guard let index = bucket(of: event.at) else { continue }
            counts[event.appleEvent, default: Array(repeating: 0, count: buckets.count)][index] +=
                Self.isLoss(event.appleEvent) ? -1 : 1
        }
        let names = counts.keys.sorted { (Self.isLoss($0) ? 1 : 0, $0) < (Self.isLoss($1) ? 1 : 0, $1) }
        let losses = ["Cancel": "#e15759", "Canceled from Billing Retry": "#9c2f31", "Refund": "#ff9d9a"]
        let series = names.map { ReportChart.Series(name: $0, values: counts[$0]!, color: losses[$0]) }
        let net = buckets.indices.map { index in series.reduce(0) { $0 + $1.values[index] } }
        let chart = ReportChart(
            title: "Subscription events (count), \(period.title)", unit: "events", xTitle: xTitle, labels: labels,
            series: series, net: ReportChart.Series(name: "net (gains − losses)", values: net))
        return ReportTable(
            kind: kind.rawValue,
            columns: [
                "date", "period", "seq", "appleEvent", "event", "notificationType", "subtype", "productId", "user",
                "originalTransactionId", "storefront", "amount", "currency",
            ], rows: ordered.map(\.cells), title: "Subscription events, \(period.title)",
            notes: [
                "One row per record effective in the period; appleEvent is the name App Store Connect's Subscription "
                    + "Event report gives it (empty when that report has no such event, e.g. auto-renew turned off).",
                "Cancel is counted when the subscription expires, as Apple does; Refund on the revocation date.",
            ], charts: [chart])
    }
}
