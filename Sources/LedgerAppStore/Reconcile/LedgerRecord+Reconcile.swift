import LedgerCore

extension LedgerRecord {
    /// The record of one transaction from a Get Transaction History page, already verified and
    /// decoded by the caller. Source `.transactionHistory`, key ``ReconcileKey/transaction(_:)``.
    ///
    /// - Parameters:
    ///   - transaction: the verified, decoded entry of `signedTransactions`.
    ///   - responseEnvironment: the page's `environment`, used when the transaction names none.
    ///   - evidence: SHA-256 of the entry's compact JWS.
    public init(
        historyTransaction transaction: TransactionPayload, responseEnvironment: LedgerEnvironment? = nil,
        evidence: [UInt8]?
    ) throws(AppStoreError) {
        let context = "history transaction \(transaction.transactionId)"
        let environment = try Self.agreedEnvironment(
            [transaction.environment, responseEnvironment], context: context)
        self.init(
            environment: environment, source: .transactionHistory,
            idempotencyKey: ReconcileKey.transaction(transaction),
            subject: Subject(transaction: transaction, renewal: nil),
            transaction: TransactionFacts(transaction), evidence: evidence)
    }

    /// The record of one subscription's last status from Get All Subscription Statuses, its signed
    /// transaction and renewal info already verified and decoded by the caller. Source
    /// `.subscriptionStatus`, key ``ReconcileKey/status(_:_:)``.
    ///
    /// - Parameters:
    ///   - status: the `lastTransactions` item (its original transaction id is checked against the payloads).
    ///   - transaction: its verified, decoded `signedTransactionInfo`.
    ///   - renewal: its verified, decoded `signedRenewalInfo`.
    ///   - responseEnvironment: the response's `environment`, used when the payloads name none.
    ///   - evidence: SHA-256 of ``LastTransactionStatus/evidencePayload``.
    public init(
        status: LastTransactionStatus?, transaction: TransactionPayload, renewal: RenewalInfoPayload?,
        responseEnvironment: LedgerEnvironment? = nil, evidence: [UInt8]?
    ) throws(AppStoreError) {
        let context = "subscription status of \(transaction.originalTransactionId)"
        if let claimed = status?.originalTransactionId, claimed != transaction.originalTransactionId {
            throw AppStoreError(
                .inconsistent,
                "\(context): the item is for subscription \(claimed) but its signed transaction is not; "
                    + "the response was altered or mis-assembled", path: "lastTransactions.originalTransactionId")
        }
        try Self.checkSameSubscription(transaction, renewal, context: context)
        let environment = try Self.agreedEnvironment(
            [transaction.environment, renewal?.environment, responseEnvironment], context: context)
        var renewalFacts = renewal.map(RenewalFacts.init)
        if renewalFacts?.isInBillingRetryPeriod == nil, let code = status?.status {
            renewalFacts?.isInBillingRetryPeriod = Self.isRetrying(code)
        }
        self.init(
            environment: environment, source: .subscriptionStatus,
            idempotencyKey: ReconcileKey.status(transaction, renewal),
            subject: Subject(transaction: transaction, renewal: renewal),
            transaction: TransactionFacts(transaction), renewal: renewalFacts, evidence: evidence)
    }

    /// Whether Apple is retrying the charge, as the item's `status` states it (3 billing retry, 4 grace period,
    /// which is a part of the retry), for renewal info that leaves `isInBillingRetryPeriod` out; nil for a status
    /// Apple has not documented.
    private static func isRetrying(_ status: SubscriptionStatus) -> Bool? {
        switch status {
        case .billingRetry, .billingGracePeriod: return true
        case .active, .expired, .revoked: return false
        default: return nil
        }
    }
}
