/// How long one period of a product lasts, as the catalog names it.
///
/// Known names are `monthly` (1 month), `semiannual` (6 months) and `annual` (12 months); a catalog may
/// declare others (e.g. `weekly`, or an ISO 8601 duration for non-renewing products) and they are kept.
public struct Period: Hashable, Sendable, CustomStringConvertible {
    /// The catalog's name for the period.
    public var name: String
    /// Whole calendar months in one period, when it is a month multiple.
    public var months: Int?
    /// Whole days in one period, when it is a day multiple.
    public var days: Int?

    /// Creates a period.
    public init(name: String, months: Int? = nil, days: Int? = nil) {
        self.name = name
        self.months = months
        self.days = days
    }

    /// One month.
    public static let monthly = Period(name: "monthly", months: 1)
    /// Six months.
    public static let semiannual = Period(name: "semiannual", months: 6)
    /// Twelve months.
    public static let annual = Period(name: "annual", months: 12)

    /// A known period name, or an ISO 8601 duration such as `P1W`, `P3M`, `P1Y`, `P30D`.
    public init?(named name: String) {
        switch name {
        case "monthly": self = .monthly
        case "semiannual": self = .semiannual
        case "annual": self = .annual
        case "weekly": self = Period(name: "weekly", days: 7)
        default:
            // ISO 8601's P<n>D/W/M/Y with n plain digits (Int's parser would also take "+5").
            let digits = name.utf8.dropFirst().dropLast()
            guard name.hasPrefix("P"), !digits.isEmpty, digits.count <= 6,
                digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let count = Int(name.dropFirst().dropLast()), count > 0, count <= 100_000, let unit = name.last
            else { return nil }
            switch unit {
            case "D": self = Period(name: name, days: count)
            case "W": self = Period(name: name, days: 7 * count)
            case "M": self = Period(name: name, months: count)
            case "Y": self = Period(name: name, months: 12 * count)
            default: return nil
            }
        }
    }

    public var description: String { name }
}

/// Where a catalog price comes from.
public enum PriceSource: String, Sendable, Hashable {
    /// Written in the seed document.
    case seed
    /// Derived from the seed's own pricing rule.
    case derived
    /// Declared by an operator-supplied catalog.
    case declared
}

/// What kind of App Store product this is.
public enum ProductKind: String, Sendable, Hashable {
    /// An auto-renewable subscription in the Visla GPS Tracking group.
    case autoRenewable
    /// A non-renewing subscription: a fixed period deduced from the product, bought again to extend.
    case nonRenewing
}

/// One product of the catalog.
public struct Product: Hashable, Sendable {
    /// The App Store product identifier, e.g. `com.visla.gps.monthly_3`.
    public var id: String
    /// The billing period.
    public var period: Period
    /// How many tracking devices the plan allows.
    public var devices: Int
    /// The list price of one period.
    public var price: Money
    /// Where the price comes from.
    public var priceSource: PriceSource
    /// Auto-renewable or non-renewing.
    public var kind: ProductKind

    /// Creates a product.
    public init(
        id: String, period: Period, devices: Int, price: Money, priceSource: PriceSource,
        kind: ProductKind = .autoRenewable
    ) {
        self.id = id
        self.period = period
        self.devices = devices
        self.price = price
        self.priceSource = priceSource
        self.kind = kind
    }
}
