/// Whom a state or history query is about.
public enum SubjectQuery: Hashable, Sendable, CustomStringConvertible {
    /// A Visla user id (the app's appAccountToken scheme).
    case user(Int64)
    /// Any appAccountToken, canonical lower case.
    case account(String)
    /// One subscription.
    case originalTransaction(String)

    public var description: String {
        switch self {
        case .user(let id): return "user \(id)"
        case .account(let token): return "account \(token)"
        case .originalTransaction(let otid): return "subscription \(otid)"
        }
    }
}

/// A subscription's state together with whom it belongs to.
public struct OwnedSubscription: Hashable, Sendable {
    /// The owner: user id and/or account token; both nil for an orphan.
    public var owner: Subject
    /// The state.
    public var state: SubscriptionState

    /// Creates an owned subscription.
    public init(owner: Subject, state: SubscriptionState) {
        self.owner = owner
        self.state = state
    }
}

/// The entitlement fold: a pure, total function from ledger entries to what a subject was entitled to at
/// valid time T, as known at K.
///
/// The same entries in any order, with any duplicates, give the same answer: entries are de-duplicated
/// by idempotency key and every choice is made by content (signed dates, then stable tie-breaks), never
/// by arrival order. It never traps, whatever the input: unknown products, notification types and
/// sources are kept and ignored where they carry no entitlement facts.
public struct EntitlementFold: Sendable {
    /// The catalog giving each product's devices and period.
    public let catalog: Catalog

    /// Creates a fold over a catalog.
    public init(catalog: Catalog) {
        self.catalog = catalog
    }

    /// The subject's entitlement at `at`, counting only entries recorded at or before `knownAt` (nil: all).
    ///
    /// - Parameter entries: any superset of the entries about the subject, in any order, duplicates allowed.
    public func state(of query: SubjectQuery, entries: some Collection<LedgerEntry>, at: Instant, knownAt: Instant?)
        -> EntitlementState
    {
        let owned = subscriptions(in: entries, at: at, knownAt: knownAt, including: query)
        var userId: Int64?
        var token: String?
        switch query {
        case .user(let id):
            userId = id
            token = AccountToken.token(forUser: id)
        case .account(let value):
            token = value
            userId = AccountToken.userId(fromToken: value)
        case .originalTransaction:
            let owner = owned.first?.owner
            userId = owner?.userId
            token = owner?.appAccountToken
        }
        return EntitlementState(
            userId: userId, appAccountToken: token, at: at, knownAt: knownAt, subscriptions: owned.map(\.state))
    }

    /// Every subscription found in `entries` with its owner, at `at` as known at `knownAt`, sorted by
    /// original transaction id. Subscriptions not yet started at `at` are left out.
    public func subscriptions(in entries: some Collection<LedgerEntry>, at: Instant, knownAt: Instant?)
        -> [OwnedSubscription]
    {
        subscriptions(in: entries, at: at, knownAt: knownAt, including: nil)
    }

    func subscriptions(
        in entries: some Collection<LedgerEntry>, at: Instant, knownAt: Instant?, including query: SubjectQuery?
    ) -> [OwnedSubscription] {
        let visible = FoldInput(entries: entries, knownAt: knownAt)
        var result: [OwnedSubscription] = []
        for (otid, group) in visible.subscriptions {
            let owner = visible.owner(of: otid, group: group)
            if let query, !Self.belongs(otid: otid, owner: owner, to: query) { continue }
            let revokes = visible.revocations(forSubscription: otid, owner: owner)
            var timeline = SubscriptionTimeline(originalTransactionId: otid, entries: group, catalog: catalog)
            timeline.applyRevocations(revokes)
            if let state = timeline.state(at: at) { result.append(OwnedSubscription(owner: owner, state: state)) }
        }
        for grant in visible.grants {
            if let query, !Self.belongs(otid: grant.targetSubscription ?? grant.id, owner: grant.owner, to: query) {
                continue
            }
            var timeline = SubscriptionTimeline(grant: grant, catalog: catalog)
            timeline.applyRevocations(visible.revocations(forSubscription: grant.targetSubscription, owner: grant.owner))
            if let state = timeline.state(at: at) { result.append(OwnedSubscription(owner: grant.owner, state: state)) }
        }
        result.sort { $0.state.originalTransactionId < $1.state.originalTransactionId }
        return result
    }

    static func belongs(otid: String, owner: Subject, to query: SubjectQuery) -> Bool {
        switch query {
        case .user(let id): return owner.userId == id
        case .account(let token):
            if let id = AccountToken.userId(fromToken: token) { return owner.userId == id }
            return owner.appAccountToken == token
        case .originalTransaction(let wanted): return otid == wanted
        }
    }
}
