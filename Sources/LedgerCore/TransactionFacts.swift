/// The signed facts of one App Store transaction (`JWSTransactionDecodedPayload`) that the ledger
/// keeps. Several versions of one transaction may arrive (a later one may carry a revocation or a
/// new expiry); the one with the latest ``signedDate`` is its truth.
public struct TransactionFacts: Hashable, Sendable {
    /// New for each purchase, renewal, upgrade or restore.
    public var transactionId: String
    /// Constant for the whole subscription.
    public var originalTransactionId: String
    /// One per billing period.
    public var webOrderLineItemId: Optional<String>
    /// The product bought.
    public var productId: String
    /// The subscription group, e.g. `21752814`.
    public var subscriptionGroupIdentifier: Optional<String>
    /// Start of this period, or the upgrade time.
    public var purchaseDate: Instant
    /// The first purchase of the subscription.
    public var originalPurchaseDate: Optional<Instant>
    /// End of this period (exclusive); nil for products that do not expire.
    public var expiresDate: Optional<Instant>
    /// `type`, raw: `Auto-Renewable Subscription`, `Non-Renewing Subscription`, …
    public var type: Optional<String>
    /// The canonical `appAccountToken`, when present.
    public var appAccountToken: Optional<String>
    /// `PURCHASED` or `FAMILY_SHARED`, raw.
    public var inAppOwnershipType: Optional<String>
    /// When Apple refunded or revoked the transaction.
    public var revocationDate: Optional<Instant>
    /// 0 refunded for another reason, 1 refunded for an issue in the app.
    public var revocationReason: Optional<Int32>
    /// `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`, raw.
    public var revocationType: Optional<String>
    /// Milliunits of a percent (50000 = 50%).
    public var revocationPercentage: Optional<Int32>
    /// True on the transaction that an upgrade superseded.
    public var isUpgraded: Bool
    /// The price paid, in milliunits of ``currency``.
    public var price: Optional<Int64>
    /// ISO 4217 currency of ``price``.
    public var currency: Optional<String>
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Optional<Int32>
    /// The offer's identifier.
    public var offerIdentifier: Optional<String>
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`, `ONE_TIME`, raw.
    public var offerDiscountType: Optional<String>
    /// `PURCHASE` or `RENEWAL`, raw.
    public var transactionReason: Optional<String>
    /// ISO 3166-1 alpha-3 storefront.
    public var storefront: Optional<String>
    /// Units bought; 1 for subscriptions.
    public var quantity: Optional<Int32>
    /// When the App Store signed this version of the transaction.
    public var signedDate: Instant

    /// Creates transaction facts.
    public init(
        transactionId: String, originalTransactionId: String, webOrderLineItemId: String? = nil,
        productId: String, subscriptionGroupIdentifier: String? = nil, purchaseDate: Instant,
        originalPurchaseDate: Instant? = nil, expiresDate: Instant?, type: String? = nil,
        appAccountToken: String? = nil, inAppOwnershipType: String? = nil, revocationDate: Instant? = nil,
        revocationReason: Int32? = nil, revocationType: String? = nil, revocationPercentage: Int32? = nil,
        isUpgraded: Bool = false, price: Int64? = nil, currency: String? = nil, offerType: Int32? = nil,
        offerIdentifier: String? = nil, offerDiscountType: String? = nil, transactionReason: String? = nil,
        storefront: String? = nil, quantity: Int32? = nil, signedDate: Instant
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.type = type
        self.appAccountToken = appAccountToken.map { AccountToken.canonical($0) ?? $0 }
        self.inAppOwnershipType = inAppOwnershipType
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.isUpgraded = isUpgraded
        self.price = price
        self.currency = currency
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.transactionReason = transactionReason
        self.storefront = storefront
        self.quantity = quantity
        self.signedDate = signedDate
    }
}

extension TransactionFacts {
    /// Whether the transaction reached its owner through Family Sharing (`inAppOwnershipType` `FAMILY_SHARED`):
    /// the family member paid nothing; the organiser's own transaction carries the sale.
    public var isFamilyShared: Bool { inAppOwnershipType == familySharedOwnership.description }

    /// Whether this version's revocation (if any) is a Family Sharing removal rather than a refund, by the fold's
    /// rule: revocationType `FAMILY_REVOKE`, or none given for a transaction shared through Family Sharing.
    public var isFamilySharingRevocation: Bool {
        EntitlementFold.Fact.isFamilyRevocation(
            revocationType: revocationType?.utf8, ownership: inAppOwnershipType?.utf8, revoke: false)
    }
}

/// The signed renewal facts of a subscription (`JWSRenewalInfoDecodedPayload`): a state that changes
/// over time. At an instant T the fold uses the latest version signed at or before T.
public struct RenewalFacts: Hashable, Sendable {
    /// The subscription these facts describe.
    public var originalTransactionId: String
    /// The product currently in effect.
    public var productId: Optional<String>
    /// The product that renews next; differs from ``productId`` while a downgrade or crossgrade is pending.
    public var autoRenewProductId: Optional<String>
    /// Whether the subscription renews automatically (`autoRenewStatus` 1).
    public var autoRenewStatus: Optional<Bool>
    /// Whether Apple is retrying a failed charge.
    public var isInBillingRetryPeriod: Optional<Bool>
    /// End of the billing grace period, while in one.
    public var gracePeriodExpiresDate: Optional<Instant>
    /// 1 cancelled, 2 billing error, 3 no consent to a price increase, 4 product unavailable, 5 other.
    public var expirationIntent: Optional<Int32>
    /// When the most recent purchase expires or renews.
    public var renewalDate: Optional<Instant>
    /// Earliest start of the current continuous run.
    public var recentSubscriptionStartDate: Optional<Instant>
    /// 0 no response yet, 1 consented (or no consent needed).
    public var priceIncreaseStatus: Optional<Int32>
    /// Price of ``autoRenewProductId`` in milliunits of ``currency``.
    public var renewalPrice: Optional<Int64>
    /// ISO 4217 currency of ``renewalPrice``.
    public var currency: Optional<String>
    /// When the App Store signed this version.
    public var signedDate: Instant

    /// Creates renewal facts.
    public init(
        originalTransactionId: String, productId: String? = nil, autoRenewProductId: String? = nil,
        autoRenewStatus: Bool? = nil, isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDate: Instant? = nil,
        expirationIntent: Int32? = nil, renewalDate: Instant? = nil, recentSubscriptionStartDate: Instant? = nil,
        priceIncreaseStatus: Int32? = nil, renewalPrice: Int64? = nil, currency: String? = nil,
        signedDate: Instant
    ) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.expirationIntent = expirationIntent
        self.renewalDate = renewalDate
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.priceIncreaseStatus = priceIncreaseStatus
        self.renewalPrice = renewalPrice
        self.currency = currency
        self.signedDate = signedDate
    }
}
