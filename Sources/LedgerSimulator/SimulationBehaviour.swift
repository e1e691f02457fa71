/// How often each behaviour of the population happens. The defaults give realistic, messy traffic; tests
/// may turn a behaviour up to see it often.
///
/// Probabilities "per month" are converted to a period's length (an annual plan churns with
/// `1 − (1 − p)¹²`).
public struct SimulationBehaviour: Sendable, Hashable {
    /// Share of users who never buy anything.
    public var neverSubscribes = 0.08
    /// Share of buyers whose purchases carry no `appAccountToken` (orphans).
    public var orphan = 0.012
    /// Share of users who get access through Family Sharing (`FAMILY_SHARED`).
    public var familyMember = 0.04
    /// Share of buyers already subscribing in the first days of the simulation.
    public var earlyJoiners = 0.35
    /// Per month: turning auto-renew off (churn).
    public var churn = 0.06
    /// Once auto-renew is off: turning it back on before the period ends.
    public var reenable = 0.25
    /// Per month: upgrading to more devices (immediate).
    public var upgrade = 0.02
    /// Per month: downgrading (or crossgrading to another duration), effective at the next renewal.
    public var downgrade = 0.015
    /// Of downgrades: cancelled before the renewal.
    public var downgradeCancelled = 0.4
    /// Per renewal: the charge fails.
    public var billingFailure = 0.04
    /// Of failures: the app's billing grace period applies.
    public var grace = 0.5
    /// Of failures in grace: recovered within the grace period.
    public var recoveryInGrace = 0.5
    /// Of failures (no grace, or grace expired): recovered during billing retry.
    public var recoveryInRetry = 0.35
    /// Per transaction: refunded (current period).
    public var refund = 0.012
    /// Per transaction: a past period's transaction is refunded.
    public var pastRefund = 0.004
    /// Of refunds: preceded by a CONSUMPTION_REQUEST.
    public var consumptionRequest = 0.5
    /// Of refunds: reversed later.
    public var refundReversed = 0.2
    /// Per transaction: a refund request that Apple declines.
    public var refundDeclined = 0.004
    /// Per month for family members: access revoked.
    public var familyRevoke = 0.08
    /// After an expiry: resubscribing later.
    public var resubscribe = 0.3
    /// Per period: the renewal date is extended (Extend Renewal Date API).
    public var renewalExtension = 0.01
    /// Per period: a price-increase notice.
    public var priceIncrease = 0.006
    /// Per period: an offer code redeemed for the active subscription.
    public var offerRedeemed = 0.006
    /// Of upgrades: the upgraded-away transaction is later re-signed with `isUpgraded` (through a refund
    /// request that Apple declines).
    public var upgradedResigned = 0.3
    /// Per delivery: delivered again (Apple retries); a third time with half this probability.
    public var duplicate = 0.05
    /// Per delivery: late by minutes to hours (Apple's first retry comes after an hour).
    public var late = 0.1
    /// Per delivery: late by hours to days (Apple retries for up to three days).
    public var veryLate = 0.04

    /// The defaults.
    public init() {}
}
