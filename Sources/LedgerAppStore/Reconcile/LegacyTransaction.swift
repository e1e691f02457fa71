import LedgerCore
import LedgerJSON

/// One transaction of a legacy `verifyReceipt` response: an entry of `latest_receipt_info` or of the
/// receipt's `in_app`, or the receipt itself in iOS 6-style responses. Unsigned.
public struct LegacyTransaction: Hashable, Sendable {
    /// `product_id`.
    public var productId: String?
    /// `transaction_id`.
    public var transactionId: String?
    /// `original_transaction_id`.
    public var originalTransactionId: String?
    /// `quantity`.
    public var quantity: Int32?
    /// `purchase_date_ms`.
    public var purchaseDate: Instant?
    /// `original_purchase_date_ms`.
    public var originalPurchaseDate: Instant?
    /// `expires_date_ms` (or, iOS 6-style, `expires_date` in milliseconds).
    public var expiresDate: Instant?
    /// `cancellation_date_ms`: when Apple refunded the transaction (or, for an upgraded-away one, the
    /// upgrade time).
    public var cancellationDate: Instant?
    /// `cancellation_reason`: 0 another reason, 1 an issue in the app.
    public var cancellationReason: Int32?
    /// `web_order_line_item_id`.
    public var webOrderLineItemId: String?
    /// `is_trial_period`.
    public var isTrialPeriod: Bool?
    /// `is_in_intro_offer_period`.
    public var isInIntroOfferPeriod: Bool?
    /// `is_upgraded`: present (true) only on a transaction an upgrade superseded.
    public var isUpgraded: Bool?
    /// `subscription_group_identifier`.
    public var subscriptionGroupIdentifier: String?
    /// `in_app_ownership_type`: PURCHASED or FAMILY_SHARED.
    public var inAppOwnershipType: String?
    /// `offer_code_ref_name`.
    public var offerCodeRefName: String?
    /// `promotional_offer_id`.
    public var promotionalOfferId: String?
    /// `app_account_token`, canonical lower-case when it is a UUID.
    public var appAccountToken: String?
    /// The JSON this was decoded from.
    public var raw: JSONValue
    /// Where in the response it was, e.g. `latest_receipt_info[2]`.
    public var path: String

    /// Decodes a legacy transaction; `path` names it in errors.
    public init(json: JSONValue, path: String) throws(AppStoreError) {
        let f = try LegacyFields(json, path: path)
        self.path = path
        productId = try f.string("product_id")
        transactionId = try f.string("transaction_id")
        originalTransactionId = try f.string("original_transaction_id")
        quantity = try f.int32("quantity")
        purchaseDate = try f.date("purchase_date")
        originalPurchaseDate = try f.date("original_purchase_date")
        expiresDate = try f.date("expires_date")
        cancellationDate = try f.date("cancellation_date")
        cancellationReason = try f.int32("cancellation_reason")
        webOrderLineItemId = try f.string("web_order_line_item_id")
        isTrialPeriod = try f.bool("is_trial_period")
        isInIntroOfferPeriod = try f.bool("is_in_intro_offer_period")
        isUpgraded = try f.bool("is_upgraded")
        subscriptionGroupIdentifier = try f.string("subscription_group_identifier")
        inAppOwnershipType = try f.string("in_app_ownership_type")
        offerCodeRefName = try f.string("offer_code_ref_name")
        promotionalOfferId = try f.string("promotional_offer_id")
        appAccountToken = try f.string("app_account_token").flatMap {
            $0.isEmpty ? nil : AccountToken.canonical($0) ?? $0
        }
        raw = json
    }
}
