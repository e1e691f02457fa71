/// Whom a state or history query is about.
public enum SubjectQuery: Hashable, Sendable {
    /// A Visla user id (the app's appAccountToken scheme).
    case user(Int64)
    /// Any appAccountToken, canonical lower case.
    case account(String)
    /// One subscription.
    case originalTransaction(String)
}
