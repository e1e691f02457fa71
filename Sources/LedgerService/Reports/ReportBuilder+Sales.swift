import LedgerCore

/// One row of the sales report: a bucket, a product, a storefront and a currency.
struct SalesKey: Hashable, Comparable {
    var bucket: Int
    var productId: String
    var storefront: String
    var currency: String

    static func < (lhs: SalesKey, rhs: SalesKey) -> Bool {
        (lhs.bucket, lhs.productId, lhs.storefront, lhs.currency)
            < (rhs.bucket, rhs.productId, rhs.storefront, rhs.currency)
    }
}

/// Units and amounts of one sales row (amounts in milliunits, refunds as positive magnitudes).
struct SalesRow {
    var purchases: Int64 = 0
    var renewals: Int64 = 0
    var upgrades: Int64 = 0
    var downgrades: Int64 = 0
    var refunds: Int64 = 0
    var sales: Int64 = 0
    var refunded: Int64 = 0
    var proceeds: Int64 = 0
    var proceedsRefunded: Int64 = 0
}

/// How a transaction came to be, from the notification that first brought it, else its reason.
enum TransactionOrigin {
    case purchase, renewal, upgrade

    init(type: String?, subtype: String?, reason: String?) {
        if subtype == "UPGRADE" {
            self = .upgrade
        } else if type == "DID_RENEW" || reason == "RENEWAL" {
            self = .renewal
        } else {
            self = .purchase
        }
    }
}

extension ReportBuilder {
    /// Each transaction once (its latest signed version; none shared through Family Sharing: the organiser's own
    /// transaction carries the sale), counted in the bucket of its purchase with its proceeds at the commission
    /// in force for it; refunds in the bucket of their revocation as negative units, negative customer price and
    /// negative proceeds at the same commission (prorated refunds by their percentage; Family Sharing revocations
    /// and upgrade cut-offs are not refunds); downgrades when Apple reported them.
    mutating func addSales(_ entries: [LedgerEntry]) {
        let transactions = Self.transactions(entries).filter { !$0.0.isFamilyShared }
        let rates = SalesProceeds.commissions(transactions.map(\.0), commission: options.commission)
        for (transaction, origin) in transactions {
            let currency = transaction.currency ?? "EUR"
            let price = transaction.price ?? 0
            let commission = rates[transaction.transactionId] ?? SalesProceeds.firstYear
            let storefront = transaction.storefront ?? ""
            if let index = bucket(of: transaction.purchaseDate) {
                let key = SalesKey(
                    bucket: index, productId: transaction.productId, storefront: storefront, currency: currency)
                switch origin {
                case .purchase: sales[key, default: SalesRow()].purchases += 1
                case .renewal: sales[key, default: SalesRow()].renewals += 1
                case .upgrade: sales[key, default: SalesRow()].upgrades += 1
                }
                sales[key, default: SalesRow()].sales += price
                sales[key, default: SalesRow()].proceeds += SalesProceeds.proceeds(price, commission: commission)
            }
            if let revoked = transaction.revocationDate, !transaction.isUpgraded,
                !transaction.isFamilySharingRevocation, let index = bucket(of: revoked)
            {
                let key = SalesKey(
                    bucket: index, productId: transaction.productId, storefront: storefront, currency: currency)
                let refunded = Self.refunded(transaction, price)
                sales[key, default: SalesRow()].refunds += 1
                sales[key, default: SalesRow()].refunded += refunded
                sales[key, default: SalesRow()].proceedsRefunded += SalesProceeds.proceeds(
                    refunded, commission: commission)
            }
        }
        for entry in entries where entry.record.notification?.subtype == "DOWNGRADE" {
            guard let target = entry.record.renewal?.autoRenewProductId ?? entry.record.transaction?.productId,
                let index = bucket(of: entry.effectiveAt)
            else { continue }
            let currency = entry.record.renewal?.currency ?? entry.record.transaction?.currency ?? "EUR"
            let key = SalesKey(
                bucket: index, productId: target, storefront: entry.record.transaction?.storefront ?? "",
                currency: currency)
            sales[key, default: SalesRow()].downgrades += 1
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

    /// The latest version of every transaction with the origin of its first appearance; its price and currency
    /// are the latest version's that states them (a legacy receipt's copy, dated when it was fetched, states
    /// none: Apple's signed price stays).
    static func transactions(_ entries: [LedgerEntry]) -> [(TransactionFacts, TransactionOrigin)] {
        var latest: [String: (facts: TransactionFacts, key: String)] = [:]
        var priced: [String: (facts: TransactionFacts, key: String)] = [:]
        var first: [String: (seq: UInt64, origin: TransactionOrigin)] = [:]
        func isLater(
            _ transaction: TransactionFacts, _ key: String, than current: (facts: TransactionFacts, key: String)?
        )
            -> Bool
        {
            guard let current else { return true }
            return (current.facts.signedDate, current.key) < (transaction.signedDate, key)
        }
        for entry in entries {
            guard let transaction = entry.record.transaction else { continue }
            let id = transaction.transactionId
            let key = entry.record.idempotencyKey
            if isLater(transaction, key, than: latest[id]) { latest[id] = (transaction, key) }
            if transaction.price != nil, isLater(transaction, key, than: priced[id]) { priced[id] = (transaction, key) }
            let origin = TransactionOrigin(
                type: entry.record.notification?.type, subtype: entry.record.notification?.subtype,
                reason: transaction.transactionReason)
            if let known = first[id], known.seq <= entry.seq { continue }
            first[id] = (entry.seq, origin)
        }
        return latest.map { id, version in
            var facts = version.facts
            if facts.price == nil, let price = priced[id]?.facts {
                facts.price = price.price
                facts.currency = price.currency
            }
            return (facts, first[id]?.origin ?? .purchase)
        }.sorted { ($0.0.purchaseDate, $0.0.transactionId) < ($1.0.purchaseDate, $1.0.transactionId) }
    }
}
