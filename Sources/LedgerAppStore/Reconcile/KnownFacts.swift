import LedgerCore

/// What the log already knows about each transaction and each subscription's renewal state, so
/// `ledger reconcile` appends only the facts the log lacks.
///
/// Apple re-signs the same transaction for every API response, so a fresh signed date alone is no
/// news, and neither is a field a sparser source (a legacy receipt) does not state. An imported
/// version adds a fact when its *state* differs from the version the log holds as of the same
/// instant: the latest known version signed at or before it, or the earliest known one when it
/// predates them all. A refund that was later reversed is therefore news again, while a re-fetched
/// unchanged transaction is not.
///
/// The state of a transaction is what can change over its life and matters to entitlements or reports: its
/// product, expiry, revocation date and `isUpgraded`, and, when the imported version states them, its price,
/// currency and revocation type (a signed version brings the price a legacy receipt never states). The state of a renewal is its next product,
/// auto-renew status, grace-period end and expiration intent, billing retry (absent meaning false),
/// and, when the imported version states them, its current product, price-increase status,
/// renewal date and renewal price.
public struct KnownFacts: Sendable {
    /// Per transaction id, the distinct states in signed-date order (a version whose state equals
    /// the one before it is not kept, so memory follows changes, not deliveries).
    private var transactions: [String: [TransactionFacts]] = [:]
    /// Per original transaction id, the distinct renewal states in signed-date order.
    private var renewals: [String: [RenewalFacts]] = [:]

    /// An empty knowledge.
    public init() {}

    /// Adds the signed facts of a record the log holds (any source).
    public mutating func learn(_ record: LedgerRecord) {
        if let transaction = record.transaction {
            Self.insert(transaction, into: &transactions[transaction.transactionId, default: []])
        }
        if let renewal = record.renewal {
            Self.insert(renewal, into: &renewals[renewal.originalTransactionId, default: []])
        }
    }

    /// Whether the record carries a transaction or renewal state the log lacks. A record with
    /// neither (an operator record, a summary notification) is always news.
    public func adds(_ record: LedgerRecord) -> Bool {
        guard record.transaction != nil || record.renewal != nil else { return true }
        if let transaction = record.transaction,
            Self.isNew(transaction, among: transactions[transaction.transactionId] ?? [])
        {
            return true
        }
        if let renewal = record.renewal, Self.isNew(renewal, among: renewals[renewal.originalTransactionId] ?? []) {
            return true
        }
        return false
    }

    private static func insert<T: StatefulFacts>(_ facts: T, into versions: inout [T]) {
        let index = versions.firstIndex { $0.signedDate > facts.signedDate } ?? versions.count
        if index > 0, !facts.changesState(of: versions[index - 1]) { return }
        versions.insert(facts, at: index)
    }

    private static func isNew<T: StatefulFacts>(_ facts: T, among versions: [T]) -> Bool {
        guard let earliest = versions.first else { return true }
        let prior = versions.last { $0.signedDate <= facts.signedDate } ?? earliest
        return facts.changesState(of: prior)
    }
}

/// Signed facts whose versions can be compared by state.
protocol StatefulFacts: Sendable {
    /// When this version was signed (or observed, for legacy receipts).
    var signedDate: Instant { get }
    /// Whether this version states something different from `prior`.
    func changesState(of prior: Self) -> Bool
}

extension TransactionFacts: StatefulFacts {
    func changesState(of prior: TransactionFacts) -> Bool {
        func differs<V: Equatable>(_ mine: V?, _ theirs: V?) -> Bool { mine != nil && mine != theirs }
        return productId != prior.productId || expiresDate != prior.expiresDate
            || revocationDate != prior.revocationDate || isUpgraded != prior.isUpgraded
            || differs(price, prior.price) || differs(currency, prior.currency)
            || differs(revocationType, prior.revocationType)
    }
}

extension RenewalFacts: StatefulFacts {
    func changesState(of prior: RenewalFacts) -> Bool {
        func differs<V: Equatable>(_ mine: V?, _ theirs: V?) -> Bool { mine != nil && mine != theirs }
        return autoRenewProductId != prior.autoRenewProductId || autoRenewStatus != prior.autoRenewStatus
            || gracePeriodExpiresDate != prior.gracePeriodExpiresDate || expirationIntent != prior.expirationIntent
            || (isInBillingRetryPeriod ?? false) != (prior.isInBillingRetryPeriod ?? false)
            || differs(productId, prior.productId) || differs(priceIncreaseStatus, prior.priceIncreaseStatus)
            || differs(renewalDate, prior.renewalDate) || differs(renewalPrice, prior.renewalPrice)
    }
}
