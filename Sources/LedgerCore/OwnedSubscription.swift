/// A subscription's state together with who owns it, as the fold derives it for projections of all users.
public struct OwnedSubscription: Hashable, Sendable {
    /// The owner: user id and account token, both nil for an orphan (no token and no link).
    public var owner: Subject
    /// The subscription's state at the instant asked about.
    public var state: SubscriptionState

    /// Creates an owned subscription.
    public init(owner: Subject, state: SubscriptionState) {
        self.owner = owner
        self.state = state
    }
}
