import LedgerCore

extension LedgerRecord {
    /// The one log record of one accepted notification.
    ///
    /// - Parameters:
    ///   - notification: the verified, decoded notification.
    ///   - transaction: `data.signedTransactionInfo`, verified and decoded by the caller.
    ///   - renewal: `data.signedRenewalInfo`, verified and decoded by the caller.
    ///   - evidence: SHA-256 of the raw signed payload, kept as evidence.
    ///
    /// The idempotency key is the canonical `notificationUUID`. The environment is the notification's
    /// (from data, summary, externalPurchaseToken or appData), else the transaction's or renewal's.
    /// A notification without transaction or renewal info (a summary, an external purchase token,
    /// app data, a TEST) maps to a record with an empty subject: kept, never fatal.
    ///
    /// - Throws: ``AppStoreError/Code/inconsistent`` when a signed member of `data` has no decoded
    ///   payload, or the payloads name different subscriptions or environments;
    ///   ``AppStoreError/Code/missingField`` when no environment is named anywhere.
    public init(
        notification: NotificationPayload, transaction: TransactionPayload?, renewal: RenewalInfoPayload?,
        evidence: [UInt8]?
    ) throws(AppStoreError) {
        let uuid = notification.notificationUUID
        if notification.data?.signedTransactionInfo != nil, transaction == nil {
            throw AppStoreError(
                .inconsistent,
                "notification \(uuid) carries data.signedTransactionInfo but no verified transaction was given; "
                    + "verify and decode it before mapping", path: "data.signedTransactionInfo")
        }
        if notification.data?.signedRenewalInfo != nil, renewal == nil {
            throw AppStoreError(
                .inconsistent,
                "notification \(uuid) carries data.signedRenewalInfo but no verified renewal info was given; "
                    + "verify and decode it before mapping", path: "data.signedRenewalInfo")
        }
        try Self.checkSameSubscription(transaction, renewal, context: "notification \(uuid)")
        let environment = try Self.agreedEnvironment(
            [notification.environment, transaction?.environment, renewal?.environment],
            context: "notification \(uuid)")
        let data = notification.data
        self.init(
            environment: environment,
            source: .notification,
            idempotencyKey: uuid,
            subject: Subject(transaction: transaction, renewal: renewal),
            notification: NotificationFacts(
                type: notification.notificationType.rawValue,
                subtype: notification.subtype?.rawValue,
                uuid: uuid,
                signedDate: notification.signedDate,
                status: data?.status?.rawValue,
                bundleId: notification.bundleId,
                appAppleId: notification.appAppleId,
                bundleVersion: data?.bundleVersion,
                consumptionRequestReason: data?.consumptionRequestReason?.rawValue),
            transaction: transaction.map(TransactionFacts.init),
            renewal: renewal.map(RenewalFacts.init),
            evidence: evidence)
    }

    /// Throws when a transaction and renewal info describe different subscriptions.
    static func checkSameSubscription(
        _ transaction: TransactionPayload?, _ renewal: RenewalInfoPayload?, context: @autoclosure () -> String
    ) throws(AppStoreError) {
        guard let transaction, let renewal else { return }
        guard transaction.originalTransactionId == renewal.originalTransactionId else {
            throw AppStoreError(
                .inconsistent,
                "\(context()): the transaction belongs to subscription \(transaction.originalTransactionId) but "
                    + "the renewal info to \(renewal.originalTransactionId); the input is not one Apple sent",
                path: "originalTransactionId")
        }
    }

    /// The one environment the candidates name (nil candidates ignored).
    static func agreedEnvironment(
        _ candidates: [LedgerEnvironment?], context: @autoclosure () -> String
    ) throws(AppStoreError) -> LedgerEnvironment {
        let named = candidates.compactMap { $0 }
        guard let first = named.first else {
            throw AppStoreError(
                .missingField,
                "\(context()) names no environment (Sandbox or Production); the ledger keeps the two apart and "
                    + "cannot place it", path: "environment")
        }
        if let other = named.first(where: { $0 != first }) {
            throw AppStoreError(
                .inconsistent,
                "\(context()) mixes environments \(first) and \(other); the ledger never mixes sandbox and "
                    + "production", path: "environment")
        }
        return first
    }
}
