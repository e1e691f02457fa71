import LedgerCore

/// One row of the events report.
struct EventRow {
    var at: Instant
    var seq: UInt64
    var appleEvent: String
    var cells: [ReportTable.Cell]
}

extension ReportBuilder {
    /// One row per record effective in the period, with the App Store Connect Subscription Event name of what it
    /// records (empty for records Apple's report has no event for, such as a change of auto-renew status).
    mutating func addEvents(_ entries: [LedgerEntry]) {
        for entry in entries {
            let at = entry.effectiveAt
            guard let index = bucket(of: at) else { continue }
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
            let appleEvent = Self.appleEvent(entry)
            events.append(
                EventRow(
                    at: at, seq: entry.seq, appleEvent: appleEvent,
                    cells: [
                        .text(at.iso8601), .text(period.label(buckets[index].start)),
                        .integer(Int64(clamping: entry.seq)),
                        .text(appleEvent), .text(entry.kind),
                        .text(record.notification?.type ?? record.source.description),
                        .text(record.notification?.subtype ?? ""),
                        .text(record.transaction?.productId ?? record.renewal?.autoRenewProductId ?? ""), .text(owner),
                        .text(record.subject.originalTransactionId ?? record.transaction?.originalTransactionId ?? ""),
                        .text(record.transaction?.storefront ?? ""),
                        amount.map(ReportTable.Cell.amount) ?? .text(""),
                        .text(amount == nil ? "" : record.transaction?.currency ?? ""),
                    ]))
        }
    }

    /// The Subscription Event report's name for what `entry` records: Subscribe, Start Introductory Offer, Start
    /// Promotional Offer, Start Offer Code, Renew, Renewal from Billing Retry, Upgrade, Downgrade, Crossgrade,
    /// Reactivate, Cancel, Canceled from Billing Retry, Refund; empty when the report has none.
    static func appleEvent(_ entry: LedgerEntry) -> String {
        let record = entry.record
        let transaction = record.transaction
        switch entry.kind {
        case "purchase":
            guard transaction?.isFamilyShared != true else { return "" }
            switch transaction?.offerType {
            case 1: return "Start Introductory Offer"
            case 2: return "Start Promotional Offer"
            case 3: return "Start Offer Code"
            default: return "Subscribe"
            }
        case "resubscribe": return "Reactivate"
        case "renewal": return "Renew"
        case "billingRecovery": return "Renewal from Billing Retry"
        case "upgrade": return "Upgrade"
        case "downgrade": return "Downgrade"
        case "renewalPreference":
            // No subtype: a crossgrade when the product that renews next differs; else a pending change undone.
            guard let next = record.renewal?.autoRenewProductId,
                let current = record.renewal?.productId ?? transaction?.productId, next != current
            else { return "" }
            return "Crossgrade"
        case "expiry":
            return record.notification?.subtype == "BILLING_RETRY" ? "Canceled from Billing Retry" : "Cancel"
        case "refund":
            return transaction?.isFamilySharingRevocation == true ? "" : "Refund"
        default: return ""
        }
    }

    /// Whether an Apple event takes a subscriber away (drawn below zero in the events chart).
    static func isLoss(_ appleEvent: String) -> Bool {
        appleEvent.hasPrefix("Cancel") || appleEvent == "Refund"
    }
}
