import LedgerCore

/// One subscription (one original transaction id) as the simulator lived it: its transactions, its billing
/// lapses and its renewal preferences. The truth is read from here, never from the ledger's fold.
struct SubscriptionModel: Sendable {
    let originalTransactionId: String
    /// `PURCHASED` or `FAMILY_SHARED`.
    let ownership: String
    /// The appAccountToken its transactions carry; nil for orphans.
    let accountToken: String?
    let originalPurchase: Instant

    var transactions: [ModelTransaction] = []
    var lapses: [Lapse] = []

    // Renewal preferences and status, as the renewal info shows them now.
    var autoRenew = true
    var autoRenewProduct: Product
    var inBillingRetry = false
    var gracePeriodExpires: Instant?
    var expirationIntent: Int32?
    var recentStart: Instant
    var priceIncreaseStatus: Int32?
    var offerIdentifier: String?
    /// Renewals since the last purchase (the sandbox stops at 12).
    var renewalsInRun = 0

    init(originalTransactionId: String, ownership: String, accountToken: String?, first: ModelTransaction) {
        self.originalTransactionId = originalTransactionId
        self.ownership = ownership
        self.accountToken = accountToken
        self.originalPurchase = first.purchase
        self.transactions = [first]
        self.autoRenewProduct = first.product
        self.recentStart = first.purchase
    }

    /// The transaction in effect now (the latest purchase).
    var current: ModelTransaction {
        get { transactions[transactions.count - 1] }
        set { transactions[transactions.count - 1] = newValue }
    }

    /// Whether the current transaction is revoked (refund not reversed, or Family Sharing revoked).
    var currentRevoked: Bool { current.revocation != nil }

    /// The truth at `instant` with everything known: absent before the first purchase, uncertain where the
    /// device count itself depends on which version of a fact one reads (no sample is taken there).
    ///
    /// Semantics (the contract's): the transaction in effect is the latest one purchased at or before the
    /// instant; it is active until its `expiresDate` (exclusive), refunded or revoked from its
    /// `revocationDate`; after it expires, a billing failure puts the subscription in grace (entitled) until
    /// `gracePeriodExpiresDate`, then in billing retry until it recovers or Apple gives up; else it is expired.
    func reading(at instant: Instant) -> SubscriptionReading.Result {
        guard let index = transactions.lastIndex(where: { $0.purchase <= instant }) else { return .absent }
        let txn = transactions[index]
        if let window = txn.reversedRefund, window.from <= instant, instant < window.until { return .uncertain }
        if let revocation = txn.revocation, revocation.date <= instant {
            let status: EntitlementStatus = revocation.isFamilyRevoke ? .revoked : .refunded
            if instant < txn.expires { return .known(SubscriptionReading(devices: 0, statuses: [status])) }
            return .known(SubscriptionReading(devices: 0, statuses: [status, .expired]))
        }
        if instant < txn.expires {
            // A recovery inside grace keeps the renewal date: the new transaction covers the grace days,
            // which renewal info signed then called a grace period.
            if index > 0, let lapse = lapses.last(where: { $0.from == txn.purchase }), lapse.recoveredInGrace,
                let recovered = lapse.recoveredAt, instant < recovered
            {
                guard transactions[index - 1].devices == txn.devices else { return .uncertain }
                return .known(SubscriptionReading(devices: txn.devices, statuses: [.active, .gracePeriod]))
            }
            return .known(SubscriptionReading(devices: txn.devices, statuses: [.active]))
        }
        if let lapse = lapses.last(where: { $0.from == txn.expires }) {
            if let grace = lapse.graceUntil, instant < grace {
                return .known(SubscriptionReading(devices: txn.devices, statuses: [.gracePeriod]))
            }
            if instant < lapse.retryUntil { return .known(SubscriptionReading(devices: 0, statuses: [.billingRetry])) }
        }
        return .known(SubscriptionReading(devices: 0, statuses: [.expired]))
    }

    /// Every instant at which this subscription's state changes or a fact about it is signed.
    var boundaries: [Instant] {
        var result: [Instant] = []
        for txn in transactions {
            result.append(txn.purchase)
            result.append(txn.expires)
            if let revocation = txn.revocation { result.append(revocation.date) }
            if let window = txn.reversedRefund {
                result.append(window.from)
                result.append(window.until)
            }
        }
        for lapse in lapses {
            result.append(lapse.from)
            if let grace = lapse.graceUntil { result.append(grace) }
            result.append(lapse.retryUntil)
            if let recovered = lapse.recoveredAt { result.append(recovered) }
        }
        return result
    }
}
