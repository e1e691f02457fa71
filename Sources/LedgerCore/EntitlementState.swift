/// The status of a subscription, or of a user, at an instant.
///
/// Ordered best first: a user's status is the best of their subscriptions'.
public enum EntitlementStatus: String, Sendable, Hashable, CaseIterable {
    /// Within a paid (or granted) period.
    case active
    /// Renewal failed, but Apple's billing grace period still entitles the user.
    case gracePeriod
    /// Renewal failed and Apple is retrying the charge; not entitled.
    case billingRetry
    /// Lapsed.
    case expired
    /// Ended by a refund.
    case refunded
    /// Ended by a Family Sharing revocation (or an operator's revoke).
    case revoked
    /// Nothing known (top level only).
    case none

    /// Lower is better.
    public var rank: Int {
        switch self {
        case .active: return 0
        case .gracePeriod: return 1
        case .billingRetry: return 2
        case .expired: return 3
        case .refunded: return 4
        case .revoked: return 5
        case .none: return 6
        }
    }

    /// Whether this status entitles the user to the subscription's devices.
    public var isEntitled: Bool { self == .active || self == .gracePeriod }
}

/// One subscription's state at an instant.
public struct SubscriptionState: Hashable, Sendable {
    /// The subscription's original transaction id (for an operator grant: `correction:` + its key).
    public var originalTransactionId: String
    /// The product in effect (or last in effect).
    public var productId: String
    /// Whether the catalog knows the product.
    public var productKnown: Bool
    /// The product's devices (0 when unknown).
    public var devices: Int
    /// The product's period name, when known.
    public var period: String?
    /// The status at the instant.
    public var status: EntitlementStatus
    /// Start of the current continuous entitlement (or of the last one).
    public var since: Instant?
    /// End of the current (or last) paid period.
    public var expiresAt: Instant?
    /// End of the billing grace period, while in one.
    public var gracePeriodExpiresAt: Instant?
    /// Whether it renews automatically, as last signed at or before the instant.
    public var autoRenew: Bool?
    /// The product a pending downgrade or crossgrade will switch to at the next renewal.
    public var pendingProductId: String?
    /// The highest sequence number among the records that shaped this state.
    public var lastSeq: UInt64

    /// Creates a subscription state.
    public init(
        originalTransactionId: String, productId: String, productKnown: Bool, devices: Int,
        period: String?,
        status: EntitlementStatus, since: Instant?, expiresAt: Instant?, gracePeriodExpiresAt: Instant?,
        autoRenew: Bool?, pendingProductId: String?, lastSeq: UInt64
    ) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.productKnown = productKnown
        self.devices = devices
        self.period = period
        self.status = status
        self.since = since
        self.expiresAt = expiresAt
        self.gracePeriodExpiresAt = gracePeriodExpiresAt
        self.autoRenew = autoRenew
        self.pendingProductId = pendingProductId
        self.lastSeq = lastSeq
    }
}

/// A user's (or account's, or one subscription's) entitlement at valid time ``at`` as known at ``knownAt``.
public struct EntitlementState: Hashable, Sendable {
    /// The Visla user id, when the subject is (or maps to) one.
    public var userId: Int64?
    /// The account token, when known.
    public var appAccountToken: String?
    /// The valid time asked about.
    public var at: Instant
    /// The knowledge limit: only records appended at or before it count; nil for all.
    public var knownAt: Instant?
    /// The subscriptions, ordered by original transaction id.
    public var subscriptions: [SubscriptionState]

    /// Creates a state.
    public init(
        userId: Int64?, appAccountToken: String?, at: Instant, knownAt: Instant?,
        subscriptions: [SubscriptionState]
    ) {
        self.userId = userId
        self.appAccountToken = appAccountToken
        self.at = at
        self.knownAt = knownAt
        self.subscriptions = subscriptions
    }

    /// Sum of devices over subscriptions that are active or in a grace period.
    public var deviceLimit: Int {
        subscriptions.reduce(0) { $0 + ($1.status.isEntitled ? $1.devices : 0) }
    }

    /// Whether the device limit is positive.
    public var entitled: Bool { deviceLimit > 0 }

    /// The best status among the subscriptions; `none` when there are none.
    public var status: EntitlementStatus {
        subscriptions.map(\.status).min { $0.rank < $1.rank } ?? .none
    }
}
