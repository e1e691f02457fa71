/// The App Store's spellings of the notification types and subtypes the fold and the history interpret
/// (App Store Server Notifications V2). Other values are kept in records and treated as informational.
enum NotificationType {
    static let subscribed = "SUBSCRIBED"
    static let didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    static let didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    static let offerRedeemed = "OFFER_REDEEMED"
    static let didRenew = "DID_RENEW"
    static let expired = "EXPIRED"
    static let didFailToRenew = "DID_FAIL_TO_RENEW"
    static let gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    static let priceIncrease = "PRICE_INCREASE"
    static let refund = "REFUND"
    static let refundDeclined = "REFUND_DECLINED"
    static let consumptionRequest = "CONSUMPTION_REQUEST"
    static let renewalExtended = "RENEWAL_EXTENDED"
    static let revoke = "REVOKE"
    static let test = "TEST"
    static let renewalExtension = "RENEWAL_EXTENSION"
    static let refundReversed = "REFUND_REVERSED"
    static let externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    static let oneTimeCharge = "ONE_TIME_CHARGE"
    static let rescindConsent = "RESCIND_CONSENT"
    static let metadataUpdate = "METADATA_UPDATE"
    static let migration = "MIGRATION"
    static let priceChange = "PRICE_CHANGE"
}

/// The App Store's notification subtypes the fold and the history interpret.
enum NotificationSubtype {
    static let initialBuy = "INITIAL_BUY"
    static let resubscribe = "RESUBSCRIBE"
    static let downgrade = "DOWNGRADE"
    static let upgrade = "UPGRADE"
    static let gracePeriod = "GRACE_PERIOD"
    static let billingRecovery = "BILLING_RECOVERY"
}

// The transaction values the fold compares a record's bytes with, as static strings: their bytes are constants,
// where a stored `String`'s are reached through a lazy initialiser and its storage at every comparison.

/// The transaction's `revocationType` for a Family Sharing removal.
let familyRevokeType: StaticString = "FAMILY_REVOKE"

/// The transaction's `inAppOwnershipType` for a purchase shared through Family Sharing.
let familySharedOwnership: StaticString = "FAMILY_SHARED"

/// The transaction's `type` for a consumable in-app purchase.
let consumableType: StaticString = "Consumable"
