// The small Apple enumerations of a notification's `data`, kept raw.

/// `data.status` (and Get All Subscription Statuses' `status`): the subscription's status as of the
/// signed date.
public struct SubscriptionStatus: AppleIntEnum {
    /// Apple's number.
    public var rawValue: Int32
    /// Wraps any raw value.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 1: active.
    public static let active = Self(rawValue: 1)
    /// 2: expired.
    public static let expired = Self(rawValue: 2)
    /// 3: in the billing retry period.
    public static let billingRetry = Self(rawValue: 3)
    /// 4: in the billing grace period.
    public static let billingGracePeriod = Self(rawValue: 4)
    /// 5: revoked.
    public static let revoked = Self(rawValue: 5)

    /// Every status Apple documents.
    public static let allKnown: [Self] = [.active, .expired, .billingRetry, .billingGracePeriod, .revoked]
}

/// `data.consumptionRequestReason` of a CONSUMPTION_REQUEST: why the customer asked for a refund.
public struct ConsumptionRequestReason: AppleStringEnum {
    /// Apple's spelling.
    public var rawValue: String
    /// Wraps any raw value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The customer did not mean to buy.
    public static let unintendedPurchase = Self(rawValue: "UNINTENDED_PURCHASE")
    /// The purchase was not delivered.
    public static let fulfillmentIssue = Self(rawValue: "FULFILLMENT_ISSUE")
    /// The customer is not satisfied.
    public static let unsatisfiedWithPurchase = Self(rawValue: "UNSATISFIED_WITH_PURCHASE")
    /// A legal reason.
    public static let legal = Self(rawValue: "LEGAL")
    /// Any other reason.
    public static let other = Self(rawValue: "OTHER")

    /// Every reason Apple documents.
    public static let allKnown: [Self] = [
        .unintendedPurchase, .fulfillmentIssue, .unsatisfiedWithPurchase, .legal, .other,
    ]
}
