import LedgerCore

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
