/// What kind of member of the population a user is.
public enum UserProfile: String, Sendable, Hashable, CaseIterable {
    /// Never buys anything: the ledger must report no entitlement.
    case bystander
    /// Buys, renews, changes plans, churns, gets refunds… with the app's appAccountToken on every purchase.
    case subscriber
    /// A subscriber whose purchases carry no appAccountToken: known to the ledger only by original
    /// transaction id until an operator links it.
    case orphan
    /// Has access through Family Sharing (`FAMILY_SHARED`); the organiser may revoke it (`REVOKE`). The
    /// member's transactions carry the member's own appAccountToken, so the ledger can attribute them.
    case familyMember
}
