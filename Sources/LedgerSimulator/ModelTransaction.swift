import LedgerCore

/// The simulator's own record of one App Store transaction, in its latest version.
struct ModelTransaction: Sendable {
    /// How a transaction was revoked.
    struct Revocation: Sendable {
        var date: Instant
        /// 0 another reason, 1 an issue in the app; nil for Family Sharing revokes.
        var reason: Int32?
        /// `REFUND_FULL`, `REFUND_PRORATED` or `FAMILY_REVOKE`.
        var type: String
        /// Milliunits of a percent, for prorated refunds.
        var percentage: Int32?

        var isFamilyRevoke: Bool { type == "FAMILY_REVOKE" }
    }

    var transactionId: String
    var webOrderLineItemId: String
    var product: Product
    var purchase: Instant
    var expires: Instant
    /// `PURCHASE` or `RENEWAL`.
    var reason: String
    var revocation: Revocation?
    /// A refund that was later reversed: `[refunded, reversed)`, where readings differ between the version
    /// of the transaction signed then and the final one.
    var reversedRefund: (from: Instant, until: Instant)?
    var isUpgraded = false

    var devices: Int { product.devices }
}

/// A billing failure at the end of a period: grace, retry, and how it ended.
struct Lapse: Sendable {
    /// The expiry that failed to renew.
    var from: Instant
    /// End (exclusive) of the billing grace period, when there was one.
    var graceUntil: Instant?
    /// End (exclusive) of billing retry: the recovery, or the expiry of the retry period.
    var retryUntil: Instant
    /// When the charge finally succeeded, if it did within the simulation.
    var recoveredAt: Instant?
    /// Whether the recovery happened inside the grace period (the renewal then keeps its date).
    var recoveredInGrace = false
}

/// What the truth says about one subscription at an instant.
struct SubscriptionReading: Sendable {
    /// Devices the subscription grants at the instant (0 unless active or in grace).
    var devices: Int
    /// The status; two when both readings are defensible (e.g. `refunded` or `expired` after a refunded
    /// period's end), one otherwise.
    var statuses: [EntitlementStatus]

    /// A reading, or why there is none.
    enum Result: Sendable {
        /// The subscription does not exist yet.
        case absent
        /// The device count depends on which version of a fact one reads.
        case uncertain
        /// The truth.
        case known(SubscriptionReading)
    }
}
