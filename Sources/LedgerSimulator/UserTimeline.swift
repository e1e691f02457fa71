import LedgerCore

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
