import LedgerCore

/// One user's expected states.
public struct UserTruth: Sendable, Hashable {
    /// The user id (`appAccountToken` scheme).
    public var userId: Int64
    /// The user's appAccountToken.
    public var appAccountToken: String
    /// What kind of user this is.
    public var profile: UserProfile
    /// The user's subscriptions.
    public var originalTransactionIds: [String]
    /// Expected states, in time order.
    public var samples: [TruthSample]

    /// Creates a user's truth.
    public init(
        userId: Int64, appAccountToken: String, profile: UserProfile, originalTransactionIds: [String],
        samples: [TruthSample]
    ) {
        self.userId = userId
        self.appAccountToken = appAccountToken
        self.profile = profile
        self.originalTransactionIds = originalTransactionIds
        self.samples = samples
    }
}

/// One orphan subscription's expected states (what `state --original-transaction-id` must answer).
public struct OrphanTruth: Sendable, Hashable {
    /// The subscription.
    public var originalTransactionId: String
    /// Who really bought it (an operator's `ledger link` would attach it to this user).
    public var userId: Int64
    /// Expected states, in time order.
    public var samples: [TruthSample]

    /// Creates an orphan's truth.
    public init(originalTransactionId: String, userId: Int64, samples: [TruthSample]) {
        self.originalTransactionId = originalTransactionId
        self.userId = userId
        self.samples = samples
    }
}
