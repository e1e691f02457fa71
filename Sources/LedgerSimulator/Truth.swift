import LedgerCore
import LedgerJSON

/// What the ledger must answer, computed from the simulator's own model of what it did (never from the
/// ledger's fold): each user's device limit and status at sampled instants.
///
/// Semantics are the contract's, with everything known (`state --at T`, no `--known-at`): the device limit
/// is the sum of devices over subscriptions active or in billing grace; a refund or revoke counts from its
/// `revocationDate`; an upgrade counts from its purchase, a downgrade from the next renewal; `expiresDate` is
/// exclusive. Samples never sit where the answer depends on signing jitter or on which version of a fact one
/// reads; where only the status is open to two readings (after a refunded period's end: `refunded` or
/// `expired`; grace days covered by a recovery that kept its renewal date: `gracePeriod` or `active`),
/// the sample's ``TruthSample/status`` is nil.
public struct Truth: Sendable, Hashable {
    /// `Production` or `Sandbox`.
    public var environment: LedgerEnvironment
    /// The first simulated instant.
    public var start: Instant
    /// The end (exclusive) of the simulated period.
    public var end: Instant
    /// Every user with an appAccountToken (bystanders, subscribers, family members), by id.
    public var users: [UserTruth]
    /// Subscriptions bought without appAccountToken, by original transaction id.
    public var orphans: [OrphanTruth]

    /// Creates a truth.
    public init(
        environment: LedgerEnvironment, start: Instant, end: Instant, users: [UserTruth], orphans: [OrphanTruth]
    ) {
        self.environment = environment
        self.start = start
        self.end = end
        self.users = users
        self.orphans = orphans
    }

    /// The user with this id, when the truth has one.
    public func user(_ id: Int64) -> UserTruth? {
        let index = users.partitioningIndex { $0.userId >= id }
        return index < users.count && users[index].userId == id ? users[index] : nil
    }
}

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

/// The expected state at one instant.
public struct TruthSample: Sendable, Hashable {
    /// The valid time.
    public var at: Instant
    /// The expected device limit (0…20).
    public var deviceLimit: Int
    /// The expected top-level status; nil where two readings are defensible (see ``Truth``).
    public var status: EntitlementStatus?

    /// Creates a sample.
    public init(at: Instant, deviceLimit: Int, status: EntitlementStatus?) {
        self.at = at
        self.deviceLimit = deviceLimit
        self.status = status
    }
}

extension Array {
    /// The first index whose element satisfies `predicate`, for a predicate false then true along the array.
    func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if predicate(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
