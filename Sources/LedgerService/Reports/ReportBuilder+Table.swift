import LedgerCore

extension ReportBuilder {
    /// One row per event effective in the period, App Store Connect style.
    mutating func addEvents(_ entries: [LedgerEntry]) {
        for entry in entries {
            let at = entry.effectiveAt
            guard at >= period.from, at < period.to else { continue }
            let record = entry.record
            var amount: Int64?
            if let transaction = record.transaction, let price = transaction.price, !transaction.isFamilyShared {
                switch entry.kind {
                case "purchase", "resubscribe", "renewal", "billingRecovery", "upgrade": amount = price
                case "refund":
                    amount = transaction.isFamilySharingRevocation ? nil : -Self.refunded(transaction, price)
                case "refundReversed":
                    // Gives back what the refund it undoes took (that transaction's latest revoked version before it).
                    let refund = entries.last { other in
                        other.seq < entry.seq && other.record.transaction?.transactionId == transaction.transactionId
                            && other.record.transaction?.revocationDate != nil
                    }
                    amount = refund?.record.transaction.map { Self.refunded($0, price) } ?? price
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

    /// What a refund of `transaction` returns of `price`: all of it, or a prorated refund's percentage
    /// (`revocationPercentage`, milliunits of a percent), as the sales report counts it.
    static func refunded(_ transaction: TransactionFacts, _ price: Int64) -> Int64 {
        let share =
            transaction.revocationType == "REFUND_PRORATED"
            ? Int64(transaction.revocationPercentage ?? 100_000) : 100_000
        return price * share / 100_000
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
            // One row per bucket and currency (a bucket without revenue: one row in the catalog's first currency);
            // the sum of monthly shares rounded to the milliunit once, not per subscription.
            let fallback = catalog.products.first?.price.currency ?? "EUR"
            let rows = buckets.indices.flatMap { i -> [[ReportTable.Cell]] in
                let currencies = recurring[i].isEmpty ? [fallback: (Int64(0), Int64(0))] : recurring[i]
                return currencies.sorted { $0.key < $1.key }.map { currency, total in
                    [
                        .text(period.label(buckets[i].start)), .amount((total.twelfths + 6) / 12),
                        .integer(total.subscriptions), .text(currency),
                    ]
                }
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
