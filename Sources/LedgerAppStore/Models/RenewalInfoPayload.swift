import LedgerCore
import LedgerJSON

/// Verified, decoded signed renewal info (`JWSRenewalInfoDecodedPayload`), every documented field.
///
/// Dates are milliseconds since the epoch; ``renewalPrice`` is in milliunits of ``currency`` (both
/// absent when auto-renew is off). Only the original transaction id and the signed date are required.
public struct RenewalInfoPayload: Hashable, Sendable {
    /// Why the subscription expired.
    public var expirationIntent: ExpirationIntent?
    /// The subscription this renewal info describes.
    public var originalTransactionId: String
    /// The product that renews next; a pending downgrade or crossgrade shows here.
    public var autoRenewProductId: String?
    /// The product currently in effect.
    public var productId: String?
    /// Whether the subscription renews automatically.
    public var autoRenewStatus: AutoRenewStatus?
    /// Whether Apple is retrying a failed charge.
    public var isInBillingRetryPeriod: Bool?
    /// The customer's response to a price increase.
    public var priceIncreaseStatus: PriceIncreaseStatus?
    /// End of the billing grace period, while in one.
    public var gracePeriodExpiresDate: Instant?
    /// The kind of offer that applies at renewal.
    public var offerType: OfferType?
    /// The offer's identifier.
    public var offerIdentifier: String?
    /// When the App Store signed this version.
    public var signedDate: Instant
    /// `Sandbox` or `Production`.
    public var environment: LedgerEnvironment?
    /// Earliest start of the current continuous run (gaps under 60 days ignored).
    public var recentSubscriptionStartDate: Instant?
    /// When the most recent purchase expires or renews.
    public var renewalDate: Instant?
    /// ISO 4217 currency of ``renewalPrice``.
    public var currency: String?
    /// Price of ``autoRenewProductId`` in milliunits of ``currency``.
    public var renewalPrice: Int64?
    /// How the customer pays during the renewal offer.
    public var offerDiscountType: OfferDiscountType?
    /// The renewal offer's duration, ISO 8601.
    public var offerPeriod: String?
    /// Win-back offers the customer may redeem, best first.
    public var eligibleWinBackOfferIds: [String]?
    /// The account token that applies to the next renewal (canonical lower-case UUID).
    public var appAccountToken: String?
    /// The app download transaction's identifier.
    public var appTransactionId: String?
    /// Advanced Commerce details, kept as sent.
    public var advancedCommerceInfo: JSONValue?
    /// The commitment plan's terms.
    public var commitmentInfo: CommitmentInfo?
    /// How the renewing commitment plan is billed.
    public var renewalBillingPlanType: BillingPlanType?
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes verified renewal info. With `requiringLedgerFields` false, as Apple's libraries do: only a
    /// member of the wrong type fails, an absent one reads empty.
    public init(json: JSONValue, requiringLedgerFields: Bool = true) throws(AppStoreError) {
        var f = try JSONFields(json, path: "renewalInfo")
        f.ledgerFieldsRequired = requiringLedgerFields
        expirationIntent = try f.raw("expirationIntent")
        originalTransactionId = try f.requiredString("originalTransactionId")
        autoRenewProductId = try f.string("autoRenewProductId")
        productId = try f.string("productId")
        autoRenewStatus = try f.raw("autoRenewStatus")
        isInBillingRetryPeriod = try f.bool("isInBillingRetryPeriod")
        priceIncreaseStatus = try f.raw("priceIncreaseStatus")
        gracePeriodExpiresDate = try f.instant("gracePeriodExpiresDate")
        offerType = try f.raw("offerType")
        offerIdentifier = try f.string("offerIdentifier")
        signedDate = try f.requiredInstant("signedDate")
        environment = try f.environment()
        recentSubscriptionStartDate = try f.instant("recentSubscriptionStartDate")
        renewalDate = try f.instant("renewalDate")
        currency = try f.string("currency")
        renewalPrice = try f.int64("renewalPrice")
        offerDiscountType = try f.raw("offerDiscountType")
        offerPeriod = try f.string("offerPeriod")
        eligibleWinBackOfferIds = try f.strings("eligibleWinBackOfferIds")
        appAccountToken = try f.accountToken()
        appTransactionId = try f.string("appTransactionId")
        advancedCommerceInfo = try f.objectValue("advancedCommerceInfo")
        commitmentInfo = try f.commitmentInfo()
        renewalBillingPlanType = try f.raw("renewalBillingPlanType")
        raw = json
    }
}
