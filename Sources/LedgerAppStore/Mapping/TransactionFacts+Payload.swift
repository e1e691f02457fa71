import LedgerCore

extension TransactionFacts {
    /// The ledger's facts of a verified transaction, field by field: enumerations keep their raw
    /// values, an absent `isUpgraded` is false, prices stay in milliunits.
    public init(_ payload: TransactionPayload) {
        self.init(
            transactionId: payload.transactionId,
            originalTransactionId: payload.originalTransactionId,
            webOrderLineItemId: payload.webOrderLineItemId,
            productId: payload.productId,
            subscriptionGroupIdentifier: payload.subscriptionGroupIdentifier,
            purchaseDate: payload.purchaseDate,
            originalPurchaseDate: payload.originalPurchaseDate,
            expiresDate: payload.expiresDate,
            type: payload.type?.rawValue,
            appAccountToken: payload.appAccountToken,
            inAppOwnershipType: payload.inAppOwnershipType?.rawValue,
            revocationDate: payload.revocationDate,
            revocationReason: payload.revocationReason?.rawValue,
            revocationType: payload.revocationType?.rawValue,
            revocationPercentage: payload.revocationPercentage,
            isUpgraded: payload.isUpgraded ?? false,
            price: payload.price,
            currency: payload.currency,
            offerType: payload.offerType?.rawValue,
            offerIdentifier: payload.offerIdentifier,
            offerDiscountType: payload.offerDiscountType?.rawValue,
            transactionReason: payload.transactionReason?.rawValue,
            storefront: payload.storefront,
            quantity: payload.quantity,
            signedDate: payload.signedDate)
    }
}

extension RenewalFacts {
    /// The ledger's facts of verified renewal info, field by field. `autoRenewStatus` 1 is true and
    /// 0 false; a value Apple may add later is kept as unknown (nil) rather than guessed.
    public init(_ payload: RenewalInfoPayload) {
        let autoRenew: Bool?
        switch payload.autoRenewStatus {
        case .on?: autoRenew = true
        case .off?: autoRenew = false
        default: autoRenew = nil
        }
        self.init(
            originalTransactionId: payload.originalTransactionId,
            productId: payload.productId,
            autoRenewProductId: payload.autoRenewProductId,
            autoRenewStatus: autoRenew,
            isInBillingRetryPeriod: payload.isInBillingRetryPeriod,
            gracePeriodExpiresDate: payload.gracePeriodExpiresDate,
            expirationIntent: payload.expirationIntent?.rawValue,
            renewalDate: payload.renewalDate,
            recentSubscriptionStartDate: payload.recentSubscriptionStartDate,
            priceIncreaseStatus: payload.priceIncreaseStatus?.rawValue,
            renewalPrice: payload.renewalPrice,
            currency: payload.currency,
            signedDate: payload.signedDate)
    }
}
