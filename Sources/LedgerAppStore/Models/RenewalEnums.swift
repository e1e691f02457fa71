// The Apple enumerations of signed renewal info, kept raw.

/// `expirationIntent`: why a subscription expired.
public struct ExpirationIntent: AppleIntEnum {
    /// Apple's number.
    public var rawValue: Int32
    /// Wraps any raw value.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 1: the customer cancelled.
    public static let customerCancelled = Self(rawValue: 1)
    /// 2: a billing error.
    public static let billingError = Self(rawValue: 2)
    /// 3: the customer did not consent to a price increase.
    public static let declinedPriceIncrease = Self(rawValue: 3)
    /// 4: the product was not available at renewal.
    public static let productUnavailable = Self(rawValue: 4)
    /// 5: another reason.
    public static let other = Self(rawValue: 5)

    /// Every value Apple documents.
    public static let allKnown: [Self] = [
        .customerCancelled, .billingError, .declinedPriceIncrease, .productUnavailable, .other,
    ]
}

/// `autoRenewStatus`: whether the subscription renews at the end of the period.
public struct AutoRenewStatus: AppleIntEnum {
    /// Apple's number.
    public var rawValue: Int32
    /// Wraps any raw value.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 0: automatic renewal is off.
    public static let off = Self(rawValue: 0)
    /// 1: automatic renewal is on.
    public static let on = Self(rawValue: 1)

    /// Every value Apple documents.
    public static let allKnown: [Self] = [.off, .on]
}

/// `priceIncreaseStatus`: the customer's response to a price increase.
public struct PriceIncreaseStatus: AppleIntEnum {
    /// Apple's number.
    public var rawValue: Int32
    /// Wraps any raw value.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 0: the customer has not responded to an increase that needs consent.
    public static let notResponded = Self(rawValue: 0)
    /// 1: the customer consented, or was notified of an increase that needs no consent.
    public static let consented = Self(rawValue: 1)

    /// Every value Apple documents.
    public static let allKnown: [Self] = [.notResponded, .consented]
}
