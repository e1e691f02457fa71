/// `notificationType` of an App Store Server Notification V2. Unknown values are kept raw.
public struct NotificationType: AppleStringEnum {
    /// Apple's spelling.
    public var rawValue: String
    /// Wraps any raw value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A purchase or resubscription in the group (subtype INITIAL_BUY or RESUBSCRIBE).
    public static let subscribed = Self(rawValue: "SUBSCRIBED")
    /// An upgrade, a scheduled downgrade, or a cancelled downgrade.
    public static let didChangeRenewalPref = Self(rawValue: "DID_CHANGE_RENEWAL_PREF")
    /// Auto-renew turned on or off.
    public static let didChangeRenewalStatus = Self(rawValue: "DID_CHANGE_RENEWAL_STATUS")
    /// An offer code, promotional or win-back offer was redeemed.
    public static let offerRedeemed = Self(rawValue: "OFFER_REDEEMED")
    /// The subscription renewed.
    public static let didRenew = Self(rawValue: "DID_RENEW")
    /// The subscription expired.
    public static let expired = Self(rawValue: "EXPIRED")
    /// A renewal failed (subtype GRACE_PERIOD when the user stays entitled).
    public static let didFailToRenew = Self(rawValue: "DID_FAIL_TO_RENEW")
    /// The billing grace period ended without a renewal.
    public static let gracePeriodExpired = Self(rawValue: "GRACE_PERIOD_EXPIRED")
    /// A price increase is pending or accepted.
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")
    /// Apple refunded a transaction.
    public static let refund = Self(rawValue: "REFUND")
    /// Apple declined a refund request.
    public static let refundDeclined = Self(rawValue: "REFUND_DECLINED")
    /// A customer asked for a refund; Apple asks for consumption data.
    public static let consumptionRequest = Self(rawValue: "CONSUMPTION_REQUEST")
    /// The renewal date of one subscription was extended.
    public static let renewalExtended = Self(rawValue: "RENEWAL_EXTENDED")
    /// Family Sharing access was revoked.
    public static let revoke = Self(rawValue: "REVOKE")
    /// A test notification requested through the App Store Server API.
    public static let test = Self(rawValue: "TEST")
    /// A mass renewal-date extension finished (SUMMARY) or failed for one subscription (FAILURE).
    public static let renewalExtension = Self(rawValue: "RENEWAL_EXTENSION")
    /// A granted refund was reversed.
    public static let refundReversed = Self(rawValue: "REFUND_REVERSED")
    /// External Purchase API token (subtype UNREPORTED).
    public static let externalPurchaseToken = Self(rawValue: "EXTERNAL_PURCHASE_TOKEN")
    /// A consumable, non-consumable or non-renewing purchase.
    public static let oneTimeCharge = Self(rawValue: "ONE_TIME_CHARGE")
    /// The customer rescinded consent (payload carries `appData`).
    public static let rescindConsent = Self(rawValue: "RESCIND_CONSENT")
    /// Advanced Commerce: subscription metadata changed.
    public static let metadataUpdate = Self(rawValue: "METADATA_UPDATE")
    /// Advanced Commerce: a subscription migrated.
    public static let migration = Self(rawValue: "MIGRATION")
    /// Advanced Commerce: a price changed.
    public static let priceChange = Self(rawValue: "PRICE_CHANGE")

    /// Every notification type Apple documents.
    public static let allKnown: [Self] = [
        .subscribed, .didChangeRenewalPref, .didChangeRenewalStatus, .offerRedeemed, .didRenew, .expired,
        .didFailToRenew, .gracePeriodExpired, .priceIncrease, .refund, .refundDeclined, .consumptionRequest,
        .renewalExtended, .revoke, .test, .renewalExtension, .refundReversed, .externalPurchaseToken,
        .oneTimeCharge, .rescindConsent, .metadataUpdate, .migration, .priceChange,
    ]
}
