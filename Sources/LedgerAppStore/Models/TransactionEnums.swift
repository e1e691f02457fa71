// The Apple enumerations of a signed transaction (and, for offers, of renewal info), kept raw.

/// `type`: the kind of in-app product.
public struct ProductType: AppleStringEnum {
    /// Apple's spelling.
    public var rawValue: String
    /// Wraps any raw value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// An auto-renewable subscription.
    public static let autoRenewable = Self(rawValue: "Auto-Renewable Subscription")
    /// A non-consumable product.
    public static let nonConsumable = Self(rawValue: "Non-Consumable")
    /// A consumable product.
    public static let consumable = Self(rawValue: "Consumable")
    /// A non-renewing subscription.
    public static let nonRenewing = Self(rawValue: "Non-Renewing Subscription")

    /// Every type Apple documents.
    public static let allKnown: [Self] = [.autoRenewable, .nonConsumable, .consumable, .nonRenewing]
}

/// `inAppOwnershipType`: bought by the user, or shared with them through Family Sharing.
public struct InAppOwnershipType: AppleStringEnum {
    /// Apple's spelling.
    public var rawValue: String
    /// Wraps any raw value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The user bought it.
    public static let purchased = Self(rawValue: "PURCHASED")
    /// A family member shares it.
    public static let familyShared = Self(rawValue: "FAMILY_SHARED")

    /// Every value Apple documents.
    public static let allKnown: [Self] = [.purchased, .familyShared]
}

/// `transactionReason`: a purchase (including upgrades and resubscriptions) or an automatic renewal.
public struct TransactionReason: AppleStringEnum {
    /// Apple's spelling.
    public var rawValue: String
    /// Wraps any raw value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The customer initiated it.
    public static let purchase = Self(rawValue: "PURCHASE")
    /// The App Store renewed the subscription.
    public static let renewal = Self(rawValue: "RENEWAL")

    /// Every value Apple documents.
    public static let allKnown: [Self] = [.purchase, .renewal]
}

/// `offerType`: the kind of subscription offer.
public struct OfferType: AppleIntEnum {
    /// Apple's number.
    public var rawValue: Int32
    /// Wraps any raw value.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 1: an introductory offer.
    public static let introductory = Self(rawValue: 1)
    /// 2: a promotional offer.
    public static let promotional = Self(rawValue: 2)
    /// 3: an offer code.
    public static let offerCode = Self(rawValue: 3)
    /// 4: a win-back offer.
    public static let winBack = Self(rawValue: 4)

    /// Every value Apple documents.
    public static let allKnown: [Self] = [.introductory, .promotional, .offerCode, .winBack]
}

/// `offerDiscountType`: how the customer pays during an offer.
public struct OfferDiscountType: AppleStringEnum {
    /// Apple's spelling.
    public var rawValue: String
    /// Wraps any raw value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Free for the offer period.
    public static let freeTrial = Self(rawValue: "FREE_TRIAL")
    /// A discounted price each period.
    public static let payAsYouGo = Self(rawValue: "PAY_AS_YOU_GO")
    /// One discounted payment up front.
    public static let payUpFront = Self(rawValue: "PAY_UP_FRONT")
    /// A one-time discount.
    public static let oneTime = Self(rawValue: "ONE_TIME")

    /// Every value Apple documents.
    public static let allKnown: [Self] = [.freeTrial, .payAsYouGo, .payUpFront, .oneTime]
}

/// `revocationReason`: why Apple refunded a transaction.
public struct RevocationReason: AppleIntEnum {
    /// Apple's number.
    public var rawValue: Int32
    /// Wraps any raw value.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 0: refunded for another reason, such as an accidental purchase.
    public static let other = Self(rawValue: 0)
    /// 1: refunded for an actual or perceived issue in the app.
    public static let appIssue = Self(rawValue: 1)

    /// Every value Apple documents.
    public static let allKnown: [Self] = [.other, .appIssue]
}

/// `revocationType`: a full or prorated refund, or a Family Sharing revocation.
public struct RevocationType: AppleStringEnum {
    /// Apple's spelling.
    public var rawValue: String
    /// Wraps any raw value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A full refund.
    public static let refundFull = Self(rawValue: "REFUND_FULL")
    /// A partial refund; see `revocationPercentage`.
    public static let refundProrated = Self(rawValue: "REFUND_PRORATED")
    /// Family Sharing access removed.
    public static let familyRevoke = Self(rawValue: "FAMILY_REVOKE")

    /// Every value Apple documents.
    public static let allKnown: [Self] = [.refundFull, .refundProrated, .familyRevoke]
}

/// `billingPlanType` / `renewalBillingPlanType`: how a commitment plan is billed.
public struct BillingPlanType: AppleStringEnum {
    /// Apple's spelling.
    public var rawValue: String
    /// Wraps any raw value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The whole commitment billed at once.
    public static let billedUpfront = Self(rawValue: "BILLED_UPFRONT")
    /// Billed each month of the commitment.
    public static let monthly = Self(rawValue: "MONTHLY")

    /// Every value Apple documents.
    public static let allKnown: [Self] = [.billedUpfront, .monthly]
}
