/// Whose entitlement a query asks about.
public enum SubjectQuery: Hashable, Sendable {
    /// A Visla user, by the integer id the app encodes in `appAccountToken`.
    case user(Int64)
    /// An account token (any UUID; one that follows the app's scheme is the same as its user).
    case account(String)
    /// One subscription, by its original transaction id (the only way to reach an orphan before a link).
    case originalTransaction(String)
}
