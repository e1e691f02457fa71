import LedgerCore
import LedgerJSON

/// A verified, decoded signed transaction (`JWSTransactionDecodedPayload`), every documented field.
///
/// Dates are milliseconds since the epoch (Xcode's fractional milliseconds are truncated); prices
/// are milliunits of ``currency``. The identifiers and dates the ledger cannot do without are
/// required; every other field may be absent.
public struct TransactionPayload: Hashable, Sendable {
    /// Constant for the whole subscription: the ledger keys its streams on it.
    public var originalTransactionId: String
    /// New for each purchase, renewal, upgrade or restore.
    public var transactionId: String
    /// One per billing period; stable across devices and restores.
    public var webOrderLineItemId: String?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The product bought.
    public var productId: String
    /// The subscription group, e.g. `21752814`.
    public var subscriptionGroupIdentifier: String?
    /// Start of this period, or the upgrade time.
    public var purchaseDate: Instant
    /// The original purchase.
    public var originalPurchaseDate: Instant?
    /// End of this period.
    public var expiresDate: Instant?
    /// Units bought; 1 for subscriptions.
    public var quantity: Int32?
    /// The kind of product.
    public var type: ProductType?
    /// The app's account token (canonical lower-case UUID).
    public var appAccountToken: String?
    /// Bought, or shared through Family Sharing.
    public var inAppOwnershipType: InAppOwnershipType?
    /// When the App Store signed this version.
    public var signedDate: Instant
    /// Why Apple refunded the transaction.
    public var revocationReason: RevocationReason?
    /// When Apple refunded or revoked the transaction.
    public var revocationDate: Instant?
    /// True on the transaction an upgrade superseded.
    public var isUpgraded: Bool?
    /// The kind of offer applied.
    public var offerType: OfferType?
    /// The offer's identifier.
    public var offerIdentifier: String?
    /// `Sandbox` or `Production`.
    public var environment: LedgerEnvironment?
    /// ISO 3166-1 alpha-3 storefront, e.g. `USA`.
    public var storefront: String?
    /// Apple's storefront id, e.g. `143441`.
    public var storefrontId: String?
    /// A purchase or a renewal.
    public var transactionReason: TransactionReason?
    /// ISO 4217 currency of ``price``.
    public var currency: String?
    /// The price in milliunits of ``currency`` (10990 = 10.99).
    public var price: Int64?
    /// How the customer pays during the offer.
    public var offerDiscountType: OfferDiscountType?
    /// The app download transaction's identifier.
    public var appTransactionId: String?
    /// The offer's duration, ISO 8601 (e.g. `P1Y`).
    public var offerPeriod: String?
    /// Full or prorated refund, or Family Sharing revocation.
    public var revocationType: RevocationType?
    /// The refunded share in milliunits of a percent (50000 = 50%).
    public var revocationPercentage: Int32?
    /// Advanced Commerce details, kept as sent.
    public var advancedCommerceInfo: JSONValue?
    /// How a commitment plan is billed.
    public var billingPlanType: BillingPlanType?
    /// The commitment plan's terms.
    public var commitmentInfo: CommitmentInfo?
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes a verified transaction payload. With `requiringLedgerFields` false, as Apple's libraries do: only a
    /// member of the wrong type fails, an absent one reads empty.
    public init(json: JSONValue, requiringLedgerFields: Bool = true) throws(AppStoreError) {
        var f = try JSONFields(json, path: "transaction")
        f.ledgerFieldsRequired = requiringLedgerFields
        originalTransactionId = try f.requiredString("originalTransactionId")
        transactionId = try f.requiredString("transactionId")
        webOrderLineItemId = try f.string("webOrderLineItemId")
        bundleId = try f.string("bundleId")
        productId = try f.requiredString("productId")
        subscriptionGroupIdentifier = try f.string("subscriptionGroupIdentifier")
        purchaseDate = try f.requiredInstant("purchaseDate")
        originalPurchaseDate = try f.instant("originalPurchaseDate")
        expiresDate = try f.instant("expiresDate")
        quantity = try f.int32("quantity")
        type = try f.raw("type")
        appAccountToken = try f.accountToken()
        inAppOwnershipType = try f.raw("inAppOwnershipType")
        signedDate = try f.requiredInstant("signedDate")
        revocationReason = try f.raw("revocationReason")
        revocationDate = try f.instant("revocationDate")
        isUpgraded = try f.bool("isUpgraded")
        offerType = try f.raw("offerType")
        offerIdentifier = try f.string("offerIdentifier")
        environment = try f.environment()
        storefront = try f.string("storefront")
        storefrontId = try f.string("storefrontId")
        transactionReason = try f.raw("transactionReason")
        currency = try f.string("currency")
        price = try f.int64("price")
        offerDiscountType = try f.raw("offerDiscountType")
        appTransactionId = try f.string("appTransactionId")
        offerPeriod = try f.string("offerPeriod")
        revocationType = try f.raw("revocationType")
        revocationPercentage = try f.int32("revocationPercentage")
        advancedCommerceInfo = try f.objectValue("advancedCommerceInfo")
        billingPlanType = try f.raw("billingPlanType")
        commitmentInfo = try f.commitmentInfo()
        raw = json
    }
}
