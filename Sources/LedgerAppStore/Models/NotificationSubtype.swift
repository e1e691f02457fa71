/// `subtype` of an App Store Server Notification V2: details its type. Unknown values are kept raw.
public struct NotificationSubtype: AppleStringEnum {
    /// Apple's spelling.
    public var rawValue: String
    /// Wraps any raw value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// First purchase in the group (or first access through Family Sharing).
    public static let initialBuy = Self(rawValue: "INITIAL_BUY")
    /// Resubscribed after expiry.
    public static let resubscribe = Self(rawValue: "RESUBSCRIBE")
    /// Downgrade or different-duration crossgrade, effective at the next renewal.
    public static let downgrade = Self(rawValue: "DOWNGRADE")
    /// Upgrade or same-duration crossgrade, effective immediately.
    public static let upgrade = Self(rawValue: "UPGRADE")
    /// Auto-renew turned on.
    public static let autoRenewEnabled = Self(rawValue: "AUTO_RENEW_ENABLED")
    /// Auto-renew turned off.
    public static let autoRenewDisabled = Self(rawValue: "AUTO_RENEW_DISABLED")
    /// Expired after the user turned auto-renew off.
    public static let voluntary = Self(rawValue: "VOLUNTARY")
    /// Billing retry ended without a successful charge.
    public static let billingRetry = Self(rawValue: "BILLING_RETRY")
    /// The user did not consent to a price increase.
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")
    /// Renewal failed but the billing grace period keeps the user entitled.
    public static let gracePeriod = Self(rawValue: "GRACE_PERIOD")
    /// A price increase awaits the user's response.
    public static let pending = Self(rawValue: "PENDING")
    /// The user accepted a price increase (or none was needed).
    public static let accepted = Self(rawValue: "ACCEPTED")
    /// A subscription that had failed to renew has now renewed.
    public static let billingRecovery = Self(rawValue: "BILLING_RECOVERY")
    /// The product was not for sale at renewal.
    public static let productNotForSale = Self(rawValue: "PRODUCT_NOT_FOR_SALE")
    /// A mass renewal-date extension finished.
    public static let summary = Self(rawValue: "SUMMARY")
    /// A renewal-date extension failed for one subscription.
    public static let failure = Self(rawValue: "FAILURE")
    /// An external purchase token was not reported.
    public static let unreported = Self(rawValue: "UNREPORTED")

    /// Every subtype Apple documents.
    public static let allKnown: [Self] = [
        .initialBuy, .resubscribe, .downgrade, .upgrade, .autoRenewEnabled, .autoRenewDisabled, .voluntary,
        .billingRetry, .priceIncrease, .gracePeriod, .pending, .accepted, .billingRecovery, .productNotForSale,
        .summary, .failure, .unreported,
    ]
}
