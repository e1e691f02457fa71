import LedgerCore
import LedgerJSON

/// One entry of a legacy response's `pending_renewal_info`: a subscription's renewal state. Unsigned.
public struct LegacyRenewalInfo: Hashable, Sendable {
    /// `original_transaction_id`.
    public var originalTransactionId: String?
    /// `product_id`: the product in effect.
    public var productId: String?
    /// `auto_renew_product_id`: the product that renews next.
    public var autoRenewProductId: String?
    /// `auto_renew_status`: "1" on, "0" off.
    public var autoRenewStatus: Bool?
    /// `expiration_intent`: 1 cancelled … 5 other.
    public var expirationIntent: Int32?
    /// `grace_period_expires_date_ms`.
    public var gracePeriodExpiresDate: Instant?
    /// `is_in_billing_retry_period`.
    public var isInBillingRetryPeriod: Bool?
    /// `price_consent_status`.
    public var priceConsentStatus: Int32?
    /// `price_increase_status`.
    public var priceIncreaseStatus: Int32?
    /// `offer_code_ref_name`.
    public var offerCodeRefName: String?
    /// `promotional_offer_id`.
    public var promotionalOfferId: String?
    /// The JSON this was decoded from.
    public var raw: JSONValue

    /// Decodes a pending renewal entry; `path` names it in errors.
    public init(json: JSONValue, path: String) throws(AppStoreError) {
        let f = try LegacyFields(json, path: path)
        originalTransactionId = try f.string("original_transaction_id")
        productId = try f.string("product_id")
        autoRenewProductId = try f.string("auto_renew_product_id")
        autoRenewStatus = try f.bool("auto_renew_status")
        expirationIntent = try f.int32("expiration_intent")
        gracePeriodExpiresDate = try f.date("grace_period_expires_date")
        isInBillingRetryPeriod = try f.bool("is_in_billing_retry_period")
        priceConsentStatus = try f.int32("price_consent_status")
        priceIncreaseStatus = try f.int32("price_increase_status")
        offerCodeRefName = try f.string("offer_code_ref_name")
        promotionalOfferId = try f.string("promotional_offer_id")
        raw = json
    }
}
