import LedgerCore
import LedgerJSON
import LedgerSystem

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
