import LedgerCore

extension LegacyReceiptResponse {
    /// The records of a legacy response, source `.legacyReceipt` and no evidence signature (the
    /// response is unsigned; the record's source marks it as such).
    ///
    /// One record per distinct transaction state (key ``ReconcileKey/legacyTransaction(_:)``; a state
    /// repeated across `latest_receipt_info` and `in_app` is recorded once), then one per distinct
    /// pending renewal (key ``ReconcileKey/legacyRenewal(_:)``), whose subject takes the account
    /// token of its subscription's transactions. Every fact is dated ``asOf``.
    ///
    /// - Parameter fallback: the environment to use when the response names none (iOS 6-style
    ///   responses); without either the response is refused.
    public func records(environment fallback: LedgerEnvironment? = nil) throws(AppStoreError) -> [LedgerRecord] {
        guard let environment = environment ?? fallback else {
            throw AppStoreError(
                .missingField,
                "the legacy receipt names no environment; pass the environment (sandbox or production) it "
                    + "came from", path: "environment")
        }
        guard let asOf else {
            throw AppStoreError(
                .missingField,
                "the legacy receipt has no request, creation or purchase date to date its facts by; import the "
                    + "complete verifyReceipt response", path: "receipt.request_date_ms")
        }
        var records: [LedgerRecord] = []
        var seen: Set<String> = []
        var tokens: [String: (token: String, purchase: Instant)] = [:]
        for transaction in transactions {
            let facts = try TransactionFacts(legacy: transaction, asOf: asOf)
            if let token = facts.appAccountToken,
                tokens[facts.originalTransactionId].map({ $0.purchase <= facts.purchaseDate }) ?? true
            {
                tokens[facts.originalTransactionId] = (token, facts.purchaseDate)
            }
            let key = ReconcileKey.legacyTransaction(facts)
            guard seen.insert(key).inserted else { continue }
            records.append(
                LedgerRecord(
                    environment: environment, source: .legacyReceipt, idempotencyKey: key,
                    subject: Subject(
                        originalTransactionId: facts.originalTransactionId, appAccountToken: facts.appAccountToken),
                    transaction: facts))
        }
        for (i, pending) in pendingRenewalInfo.enumerated() {
            let facts = try RenewalFacts(legacy: pending, asOf: asOf, path: "pending_renewal_info[\(i)]")
            let key = ReconcileKey.legacyRenewal(facts)
            guard seen.insert(key).inserted else { continue }
            records.append(
                LedgerRecord(
                    environment: environment, source: .legacyReceipt, idempotencyKey: key,
                    subject: Subject(
                        originalTransactionId: facts.originalTransactionId,
                        appAccountToken: tokens[facts.originalTransactionId]?.token),
                    renewal: facts))
        }
        return records
    }
}

extension TransactionFacts {
    /// The facts of a legacy transaction: `cancellation_date` becomes the revocation date,
    /// `cancellation_reason` the revocation reason, `is_upgraded` isUpgraded; a trial or introductory
    /// period is offer type 1 (a trial is FREE_TRIAL), a promotional offer 2, an offer code 3. A
    /// missing `original_transaction_id` is the transaction's own id (a first purchase).
    ///
    /// - Parameter asOf: the response's ``LegacyReceiptResponse/asOf``, used as the signed date.
    public init(legacy: LegacyTransaction, asOf: Instant) throws(AppStoreError) {
        let path = legacy.path
        guard let transactionId = legacy.transactionId else { throw .missing("\(path).transaction_id") }
        guard let productId = legacy.productId else { throw .missing("\(path).product_id") }
        guard let purchaseDate = legacy.purchaseDate else { throw .missing("\(path).purchase_date_ms") }
        var offerType: Int32?
        var offerIdentifier: String?
        var offerDiscountType: String?
        if legacy.isTrialPeriod == true {
            offerType = OfferType.introductory.rawValue
            offerDiscountType = OfferDiscountType.freeTrial.rawValue
        } else if legacy.isInIntroOfferPeriod == true {
            offerType = OfferType.introductory.rawValue
        } else if let promotional = legacy.promotionalOfferId {
            offerType = OfferType.promotional.rawValue
            offerIdentifier = promotional
        } else if let code = legacy.offerCodeRefName {
            offerType = OfferType.offerCode.rawValue
            offerIdentifier = code
        }
        self.init(
            transactionId: transactionId,
            originalTransactionId: legacy.originalTransactionId ?? transactionId,
            webOrderLineItemId: legacy.webOrderLineItemId,
            productId: productId,
            subscriptionGroupIdentifier: legacy.subscriptionGroupIdentifier,
            purchaseDate: purchaseDate,
            originalPurchaseDate: legacy.originalPurchaseDate,
            expiresDate: legacy.expiresDate,
            appAccountToken: legacy.appAccountToken,
            inAppOwnershipType: legacy.inAppOwnershipType,
            revocationDate: legacy.cancellationDate,
            revocationReason: legacy.cancellationReason,
            isUpgraded: legacy.isUpgraded ?? false,
            offerType: offerType,
            offerIdentifier: offerIdentifier,
            offerDiscountType: offerDiscountType,
            quantity: legacy.quantity,
            signedDate: asOf)
    }
}

extension RenewalFacts {
    /// The facts of a legacy pending renewal: auto_renew_product_id, auto_renew_status,
    /// is_in_billing_retry_period, grace_period_expires_date_ms, expiration_intent and
    /// price_increase_status, dated `asOf`.
    public init(legacy: LegacyRenewalInfo, asOf: Instant, path: String) throws(AppStoreError) {
        guard let originalTransactionId = legacy.originalTransactionId else {
            throw .missing("\(path).original_transaction_id")
        }
        self.init(
            originalTransactionId: originalTransactionId,
            productId: legacy.productId,
            autoRenewProductId: legacy.autoRenewProductId,
            autoRenewStatus: legacy.autoRenewStatus,
            isInBillingRetryPeriod: legacy.isInBillingRetryPeriod,
            gracePeriodExpiresDate: legacy.gracePeriodExpiresDate,
            expirationIntent: legacy.expirationIntent,
            priceIncreaseStatus: legacy.priceIncreaseStatus,
            signedDate: asOf)
    }
}
