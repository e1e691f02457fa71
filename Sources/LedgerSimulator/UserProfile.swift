import LedgerCore

/// What kind of member of the population a user is.
public enum UserProfile: String, Sendable, Hashable, CaseIterable {
    /// Never buys anything: the ledger must report no entitlement.
    case bystander
    /// Buys, renews, changes plans, churns, gets refunds… with the app's appAccountToken on every purchase.
    case subscriber
    /// A subscriber whose purchases carry no appAccountToken: known to the ledger only by original
    /// transaction id until an operator links it.
    case orphan
    /// Has access through Family Sharing (`FAMILY_SHARED`); the organiser may revoke it.
    case familyMember
}

/// One user's part of a simulation: the subscription as the simulator lived it and the notifications it
/// caused, in the order they were signed.
struct UserTimeline: Sendable {
    var userId: Int64
    var profile: UserProfile
    /// The appAccountToken the app set (nil for orphans' purchases, which carry none).
    var accountToken: String?
    var subscription: SubscriptionModel?
    var notifications: [SimulatedNotification] = []
    /// Deliveries: the index of the notification in ``notifications``, when it arrives and which attempt.
    var deliveries: [(notification: Int, at: Instant, attempt: Int)] = []
}
