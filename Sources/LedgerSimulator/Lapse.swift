import LedgerCore

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
