import LedgerCore

extension ReportBuilder {
    /// One row per event effective in the period, App Store Connect style.
    mutating func addEvents(_ entries: [LedgerEntry]) {
        for entry in entries {
            let at = entry.effectiveAt
            guard at >= period.from, at < period.to else { continue }
            let record = entry.record
            var amount: Int64?
            if let transaction = record.transaction, let price = transaction.price {
                switch entry.kind {
                case "purchase", "resubscribe", "renewal", "billingRecovery", "upgrade": amount = price
                case "refund": amount = -price
                default: amount = nil
                }
            }
            let owner = record.subject.userId.map { String($0) } ?? record.subject.appAccountToken ?? ""
            events.append(
                (
                    at, entry.seq,
                    [
                        .text(at.iso8601), .integer(Int64(clamping: entry.seq)), .text(entry.kind),
                        .text(record.notification?.type ?? record.source.description),
                        .text(record.notification?.subtype ?? ""),
                        .text(record.transaction?.productId ?? record.renewal?.autoRenewProductId ?? ""), .text(owner),
                        .text(record.subject.originalTransactionId ?? record.transaction?.originalTransactionId ?? ""),
                        amount.map(ReportTable.Cell.amount) ?? .text(""),
                        .text(amount == nil ? "" : record.transaction?.currency ?? ""),
                    ]
                ))
        }
    }

    /// The finished table.
    func table() -> ReportTable {
        switch kind {
        case .sales:
            let rows = sales.sorted { $0.key < $1.key }.map { key, row -> [ReportTable.Cell] in
                [
                    .text(period.label(buckets[key.bucket].start)), .text(key.productId),
                    .integer(Int64(row.purchases)),
                    .integer(Int64(row.renewals)), .integer(Int64(row.upgrades)), .integer(Int64(row.downgrades)),
                    .integer(Int64(row.refunds)), .amount(row.sales), .amount(row.refunded),
                    .amount(row.sales - row.refunded),
                    .text(key.currency),
                ]
            }
            return ReportTable(
                kind: kind.rawValue,
                columns: [
                    "period", "productId", "purchases", "renewals", "upgrades", "downgrades", "refunds", "sales",
                    "refunded", "net", "currency",
                ], rows: rows)
        case .events:
            let rows = events.sorted { ($0.at, $0.seq) < ($1.at, $1.seq) }.map(\.cells)
            return ReportTable(
                kind: kind.rawValue,
                columns: [
                    "date", "seq", "event", "notificationType", "subtype", "productId", "user",
                    "originalTransactionId", "amount", "currency",
                ], rows: rows)
        case .active:
            let rows = buckets.indices.map { i -> [ReportTable.Cell] in
                [
                    .text(period.label(buckets[i].start)), .integer(series[i][0]), .integer(series[i][1]),
                    .integer(series[i][3]),
                ]
            }
            return ReportTable(
                kind: kind.rawValue,
                columns: ["period", "activeSubscriptions", "devicesUnderContract", "inGracePeriod"],
                rows: rows)
        case .mrr:
            let rows = buckets.indices.map { i -> [ReportTable.Cell] in
                [.text(period.label(buckets[i].start)), .amount(series[i][2]), .integer(series[i][0]), .text("EUR")]
            }
            return ReportTable(
                kind: kind.rawValue, columns: ["period", "mrr", "activeSubscriptions", "currency"], rows: rows)
        case .churn:
            let rows = buckets.indices.map { i -> [ReportTable.Cell] in
                let start = series[i][0]
                let churned = series[i][1]
                return [
                    .text(period.label(buckets[i].start)), .integer(start), .integer(churned),
                    .ratio(start == 0 ? 0 : Double(churned) / Double(start)),
                ]
            }
            return ReportTable(
                kind: kind.rawValue, columns: ["period", "activeAtStart", "churned", "churnRate"], rows: rows)
        }
    }
}
