import LedgerCore

extension ReportBuilder {
    /// The active table: per bucket, at its end, a total row (`ALL`) then one row per product; and a chart of
    /// active subscriptions stacked by period or device count.
    func activeReport() -> ReportTable {
        var rows: [[ReportTable.Cell]] = []
        var stacks: [String: [Double]] = [:]
        for index in buckets.indices {
            let label = Cell.text(period.label(buckets[index].start))
            let asOf = Cell.text(asOf(index).iso8601)
            let total = active[index].values.reduce(into: ActiveRow()) { sum, row in
                sum.subscriptions += row.subscriptions
                sum.devices += row.devices
                sum.inGracePeriod += row.inGracePeriod
            }
            rows.append([
                label, asOf, .text("ALL"), .text(""), .text(""), .integer(total.subscriptions), .integer(total.devices),
                .integer(total.inGracePeriod),
            ])
            for (key, row) in active[index].sorted(by: { $0.key.productId < $1.key.productId }) {
                rows.append([
                    label, asOf, .text(key.productId), .text(key.period), .integer(Int64(key.devices)),
                    .integer(row.subscriptions), .integer(row.devices), .integer(row.inGracePeriod),
                ])
                let stack = stackName(
                    productId: key.productId, period: key.period, devices: key.devices, at: self.asOf(index))
                stacks[stack, default: Array(repeating: 0, count: buckets.count)][index] += Double(row.subscriptions)
            }
        }
        let chart = ReportChart(
            title: "Active subscriptions at the end of each bucket, \(period.title), by \(options.stack.rawValue)",
            unit: "subscriptions", xTitle: xTitle, labels: labels,
            series: Self.stackOrder(stacks.keys).map { ReportChart.Series(name: $0, values: stacks[$0]!) })
        return ReportTable(
            kind: kind.rawValue,
            columns: [
                "period", "asOf", "productId", "billingPeriod", "devicesPerSubscription", "activeSubscriptions",
                "devicesUnderContract", "inGracePeriod",
            ], rows: rows, title: "Active subscriptions, \(period.title)",
            notes: [
                "Point in time: each bucket's figures are taken at its end (asOf, the bucket's last millisecond).",
                "Active = entitled (active or in billing grace), including operator grants; the ALL row sums the "
                    + "bucket's products.",
            ], charts: [chart])
    }

    typealias Cell = ReportTable.Cell

    /// The MRR table: per bucket, at its end, one row per currency (a bucket without revenue: one row in the
    /// catalog's first currency), and with a target currency its conversion and an `ALL` row summing them.
    /// - Throws: ``ServiceError`` `missingRate` naming a currency the rate table lacks.
    func mrrReport() throws(ServiceError) -> ReportTable {
        let fallback = fold.catalog.products.first?.price.currency ?? "EUR"
        let target = options.currency
        if let target {
            let missing = Set(recurring.flatMap { $0.keys.map(\.currency) } + [target])
                .filter { options.rates[$0] == nil && $0 != target }.sorted()
            if !missing.isEmpty {
                throw ServiceError(
                    .missingRate,
                    "no exchange rate for \(missing.joined(separator: ", ")) in the rate table: add "
                        + "\(missing.map { "\"\($0)\": RATE" }.joined(separator: ", ")) (1 unit = RATE \(target))")
            }
        }
        func rate(_ currency: String) -> Int64 { currency == target ? 1_000_000 : options.rates[currency] ?? 0 }
        var rows: [[Cell]] = []
        var charts: [String: [String: [Double]]] = [:]
        for index in buckets.indices {
            var byCurrency: [String: (twelfths: Int64, subscriptions: Int64)] = [:]
            for (key, value) in recurring[index] {
                byCurrency[key.currency, default: (0, 0)].twelfths += value.twelfths
                byCurrency[key.currency, default: (0, 0)].subscriptions += value.subscriptions
                let stack = stackName(productId: key.productId, period: nil, devices: nil, at: asOf(index))
                let amount = Double(value.twelfths) / 12_000
                charts[key.currency, default: [:]][stack, default: Array(repeating: 0, count: buckets.count)][index] +=
                    amount
                if let target {
                    charts["→" + target, default: [:]][stack, default: Array(repeating: 0, count: buckets.count)][
                        index] += amount * Double(rate(key.currency)) / 1_000_000
                }
            }
            if byCurrency.isEmpty { byCurrency[target ?? fallback] = (0, 0) }
            let label = Cell.text(period.label(buckets[index].start))
            let asOf = Cell.text(asOf(index).iso8601)
            var converted: Int64 = 0
            var paying: Int64 = 0
            for (currency, total) in byCurrency.sorted(by: { $0.key < $1.key }) {
                // The sum of monthly shares rounded to the cent once, not per subscription.
                let mrr = Self.cents(twelfths: total.twelfths, rate: 1_000_000)
                var row: [Cell] = [label, asOf, .text(currency), .amount(mrr), .integer(total.subscriptions)]
                if let target {
                    let value = Self.cents(twelfths: total.twelfths, rate: rate(currency))
                    converted += value
                    row += [.text(Self.rateText(rate(currency))), .text(target), .amount(value)]
                }
                paying += total.subscriptions
                rows.append(row)
            }
            if let target {
                rows.append([
                    label, asOf, .text("ALL"), .text(""), .integer(paying), .text(""), .text(target),
                    .amount(converted),
                ])
            }
        }
        var columns = ["period", "asOf", "currency", "mrr", "payingSubscriptions"]
        if target != nil { columns += ["rate", "convertedCurrency", "convertedMrr"] }
        let chartList = charts.keys.sorted { ($0.hasPrefix("→") ? 1 : 0, $0) < ($1.hasPrefix("→") ? 1 : 0, $1) }.map {
            key -> ReportChart in
            let currency = key.hasPrefix("→") ? String(key.dropFirst()) : key
            let what = key.hasPrefix("→") ? "all currencies in \(currency) at the rate table's rates" : currency
            let stacks = charts[key]!
            return ReportChart(
                title: "MRR (\(what)) at the end of each bucket, \(period.title), by \(options.stack.rawValue)",
                unit: currency + " per month", xTitle: xTitle, labels: labels,
                series: Self.stackOrder(stacks.keys).map { ReportChart.Series(name: $0, values: stacks[$0]!) })
        }
        var notes = [
            "Point in time: MRR is taken at each bucket's end (asOf, its last millisecond).",
            "MRR = for each entitled subscription, the last price Apple charged for it by then (offers included; "
                + "none for free trials, operator grants, Family Sharing members or non-renewing passes), per month: annual ÷ 12, "
                + "semiannual ÷ 6, monthly as is; summed per currency and rounded to the cent once.",
        ]
        if let target {
            notes.append(
                "convertedMrr = mrr × rate, the operator's rate table (1 unit of the currency = rate \(target)), "
                    + "from the exact sum, rounded to the cent; the ALL row sums the conversions.")
        }
        return ReportTable(
            kind: kind.rawValue, columns: columns, rows: rows, title: "Monthly recurring revenue, \(period.title)",
            notes: notes, charts: chartList)
    }

    /// Twelfths of a milliunit at `rate` millionths, in milliunits rounded half up to the cent (10 milliunits).
    static func cents(twelfths: Int64, rate: Int64) -> Int64 {
        let (scaled, overflow) = twelfths.multipliedReportingOverflow(by: rate)
        guard !overflow else { return Int64((Double(twelfths) * Double(rate) / 120_000_000).rounded()) * 10 }
        let divisor: Int64 = 12 * 1_000_000 * 10
        return (scaled + divisor / 2) / divisor * 10
    }

    static func rateText(_ millionths: Int64) -> String {
        var fraction = String(millionths % 1_000_000)
        while fraction.count < 6 { fraction = "0" + fraction }
        while fraction.count > 1, fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(millionths / 1_000_000).\(fraction)"
    }

    /// The churn table: per bucket, the subscriptions active at its start, those of them that ended in it, and
    /// their ratio; and a chart of the rate in percent.
    func churnReport() -> ReportTable {
        let rows = buckets.indices.map { index -> [Cell] in
            let (start, churned) = churn[index]
            return [
                .text(period.label(buckets[index].start)), .text(buckets[index].start.iso8601),
                .text(asOf(index).iso8601),
                .integer(start), .integer(churned), .ratio(start == 0 ? 0 : Double(churned) / Double(start)),
            ]
        }
        let rates = buckets.indices.map { index in
            churn[index].atStart == 0 ? 0 : Double(churn[index].churned) * 100 / Double(churn[index].atStart)
        }
        let chart = ReportChart(
            title: "Churn rate (% of subscriptions active at the bucket's start), \(period.title)", unit: "%",
            xTitle: xTitle, labels: labels, series: [ReportChart.Series(name: "churn rate", values: rates)])
        return ReportTable(
            kind: kind.rawValue,
            columns: ["period", "from", "asOf", "activeAtStart", "churned", "churnRate"], rows: rows,
            title: "Churn, \(period.title)",
            notes: [
                "churnRate = churned ÷ activeAtStart: activeAtStart counts the subscriptions entitled just before "
                    + "the bucket starts (the previous bucket's end); churned, those of them no longer entitled at its "
                    + "end (asOf). A subscription that starts and ends within one bucket counts in neither.",
                "An upgrade, downgrade or crossgrade keeps the subscription: it is no churn.",
            ], charts: [chart])
    }
}
