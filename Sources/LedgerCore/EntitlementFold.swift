/// Derives entitlements from ledger entries: the one place where the App Store's facts become a user's
/// status and device limit at a valid time `at`, as known at `knownAt`.
///
/// The fold is a pure, total function of a *set* of entries: any order, any duplicates, the same answer;
/// it never traps on any input. The rules, in the README's words ("How entitlements are computed"):
/// - a transaction grants its product's devices over `[purchaseDate, expiresDate)`; its latest signed
///   version is its truth (a revocation ends it, a re-signed version without one reinstates it, a later
///   expiresDate extends it);
/// - grants of one subscription never overlap: a transaction starting inside an earlier one cuts it;
/// - renewal info is a state over time: at `at` the latest signed at or before `at` counts (auto-renew,
///   a pending downgrade or crossgrade, the grace period, billing retry);
/// - corrections grant or revoke from their effective time; links attach orphans to users.
public struct EntitlementFold: Sendable {
    /// The catalog versions that give products their kinds, devices and periods: each period (a transaction's
    /// purchase to expiry, a pass, an operator's grant) takes the version in force at its start.
    public let catalogs: CatalogHistory

    /// The catalog in force from the latest version's effective time on.
    public var catalog: Catalog { catalogs.catalog(at: .distantFuture) }

    /// Creates a fold over one catalog in force throughout.
    public init(catalog: Catalog = .visla) {
        self.catalogs = CatalogHistory(catalog: catalog)
    }

    /// Creates a fold over a log's catalog versions (``CatalogHistory``).
    public init(catalogs: CatalogHistory) {
        self.catalogs = catalogs
    }

    /// The catalog in force at `instant`.
    @inline(__always)
    func catalog(at instant: Instant) -> Catalog { catalogs.catalog(at: instant) }

    /// The fold as known at `knownAt`: the catalog versions recorded after it do not count.
    private func known(at knownAt: Instant?) -> EntitlementFold {
        guard let knownAt, catalogs.entries.contains(where: { $0.recordedAt > knownAt }) else { return self }
        return EntitlementFold(catalogs: catalogs.known(at: knownAt))
    }

    /// The entitlement of a user, account or single subscription at valid time `at`, as known at `knownAt`.
    ///
    /// - Parameters:
    ///   - query: whose entitlement.
    ///   - entries: any superset of the records about the subject, any order, duplicates allowed.
    ///   - at: the valid time.
    ///   - knownAt: only entries recorded at or before it count; nil for all.
    public func state(
        of query: SubjectQuery, entries: some Collection<LedgerEntry>, at: Instant, knownAt: Instant?
    ) -> EntitlementState {
        withContiguous(entries) { buffer in
            known(at: knownAt).state(
                of: query, index: Index(buffer, knownAt: knownAt, only: narrowing(query)), at: at, knownAt: knownAt)
        }
    }

    /// ``state(of:entries:at:knownAt:)`` over records decoded for the fold alone: the same answer.
    ///
    /// - Parameters:
    ///   - query: whose entitlement.
    ///   - records: any superset of the records about the subject, any order, duplicates allowed.
    ///   - at: the valid time.
    ///   - knownAt: only records recorded at or before it count; nil for all.
    public func state(of query: SubjectQuery, records: FoldRecords, at: Instant, knownAt: Instant?)
        -> EntitlementState
    {
        known(at: knownAt).state(
            of: query, index: Index(records, knownAt: knownAt, only: narrowing(query)), at: at, knownAt: knownAt)
    }

    /// ``state(of:entries:at:knownAt:)`` at each of several instants, the entries indexed and each subscription's
    /// periods worked out once (a chart's samples: what depends on the instant is all that is redone).
    public func states(
        of query: SubjectQuery, entries: some Collection<LedgerEntry>, at instants: [Instant], knownAt: Instant?
    ) -> [EntitlementState] {
        withContiguous(entries) { buffer in
            let index = Index(buffer, knownAt: knownAt, only: narrowing(query))
            let fold = known(at: knownAt)
            let plan = StatePlan(of: query, index: index, fold: fold)
            return instants.map { fold.state(plan, in: index, at: $0, knownAt: knownAt) }
        }
    }

    /// The one subscription an index of the entries may keep for `query`: a subscription's own, unless the
    /// catalog sells passes, whose start depends on the owner's other passes (``stackPasses(_:owners:in:)``).
    private func narrowing(_ query: SubjectQuery) -> String? {
        guard case .originalTransaction(let otid) = query, !catalogs.sellsPasses else { return nil }
        return otid
    }

    private func state(of query: SubjectQuery, index: Index, at: Instant, knownAt: Instant?) -> EntitlementState {
        state(StatePlan(of: query, index: index, fold: self), in: index, at: at, knownAt: knownAt)
    }

    /// What a subject's state is made of, whatever the instant: its subscriptions with their owners, revokes,
    /// periods and last seqs, and the operator grants that belong to it.
    struct StatePlan {
        struct Subscription {
            let group: Index.Group
            var grants: [Grant]
            let lastSeq: UInt64
            /// Its owner's operator revokes, applied once passes are stacked.
            let revokes: [Instant]
        }

        let identity: (userId: Int64?, token: String?)
        let subscriptions: [Subscription]
        let grants: [(grant: Corrections.GrantCorrection, revokes: [Corrections.Revoke])]

        init(of query: SubjectQuery, index: Index, fold: EntitlementFold) {
            var identity = EntitlementFold.identity(of: query)
            let query = EntitlementFold.canonical(query)
            let corrections = Corrections.of(index)
            var subscriptions: [Subscription] = []
            var owners: [Subject] = []
            subscriptions.reserveCapacity(index.groups.count)
            // A subscription is planned with its owner's others, which may stack passes before its own.
            var asked: (otid: String, passOwner: String)?
            if case .originalTransaction(let otid) = query,
                let group = index.groups.first(where: { $0.originalTransactionId == otid })
            {
                let owner = EntitlementFold.owner(of: group, in: index)
                identity = (owner.userId, owner.appAccountToken)
                asked = (otid, EntitlementFold.passOwner(owner, of: group))
            }
            for group in index.groups {
                let owner = EntitlementFold.owner(of: group, in: index)
                if case .originalTransaction = query {
                    guard let asked, EntitlementFold.passOwner(owner, of: group) == asked.passOwner else { continue }
                } else if !EntitlementFold.owner(owner, matches: query) {
                    continue
                }
                subscriptions.append(fold.planned(group, owner: owner, in: index, corrections: corrections))
                owners.append(owner)
            }
            fold.stackPasses(&subscriptions, owners: owners, in: index)
            if let asked { subscriptions.removeAll { $0.group.originalTransactionId != asked.otid } }
            var grants: [(grant: Corrections.GrantCorrection, revokes: [Corrections.Revoke])] = []
            for grant in corrections.grants {
                let belongs: Bool
                if case .originalTransaction(let otid) = query {
                    belongs = grant.attachedTo == otid
                } else {
                    belongs = EntitlementFold.owner(grant.owner, matches: query)
                }
                guard belongs else { continue }
                grants.append((grant, corrections.revokes(otid: grant.attachedTo, owner: grant.owner)))
            }
            self.identity = identity
            self.subscriptions = subscriptions
            self.grants = grants
        }
    }

    /// A plan's state at `at` (`index`: the one the plan was made from).
    private func state(_ plan: StatePlan, in index: Index, at: Instant, knownAt: Instant?) -> EntitlementState {
        var subscriptions: [SubscriptionState] = []
        subscriptions.reserveCapacity(plan.subscriptions.count + plan.grants.count)
        for item in plan.subscriptions {
            if let state = state(of: item.group, in: index, grants: item.grants, at: at, lastSeq: item.lastSeq) {
                subscriptions.append(state)
            }
        }
        for (grant, revokes) in plan.grants {
            if let state = state(of: grant, in: index, revokes: revokes, at: at) {
                subscriptions.append(state)
            }
        }
        subscriptions.sort { $0.originalTransactionId < $1.originalTransactionId }
        return EntitlementState(
            userId: plan.identity.userId, appAccountToken: plan.identity.token, at: at, knownAt: knownAt,
            subscriptions: subscriptions)
    }

    /// Every subscription found in `entries` with its owner, at valid time `at` as known at `knownAt`
    /// (projections of all users). Subscriptions that had not started by `at` are left out. Sorted by
    /// original transaction id.
    public func subscriptions(
        in entries: some Collection<LedgerEntry>, at: Instant, knownAt: Instant?
    ) -> [OwnedSubscription] {
        withContiguous(entries) { buffer in
            known(at: knownAt).subscriptions(index: Index(buffer, knownAt: knownAt), at: at)
        }
    }

    /// ``subscriptions(in:at:knownAt:)`` over records decoded for the fold alone: the same answer.
    public func subscriptions(in records: FoldRecords, at: Instant, knownAt: Instant?) -> [OwnedSubscription] {
        known(at: knownAt).subscriptions(index: Index(records, knownAt: knownAt), at: at)
    }

    private func subscriptions(index: Index, at: Instant) -> [OwnedSubscription] {
        let corrections = Corrections.of(index)
        var result: [OwnedSubscription] = []
        result.reserveCapacity(index.groups.count + corrections.grants.count)
        var plans: [StatePlan.Subscription] = []
        var owners: [Subject] = []
        plans.reserveCapacity(index.groups.count)
        owners.reserveCapacity(index.groups.count)
        for group in index.groups {
            let owner = Self.owner(of: group, in: index)
            plans.append(planned(group, owner: owner, in: index, corrections: corrections))
            owners.append(owner)
        }
        stackPasses(&plans, owners: owners, in: index)
        for (plan, owner) in zip(plans, owners) {
            if let state = state(of: plan.group, in: index, grants: plan.grants, at: at, lastSeq: plan.lastSeq) {
                result.append(OwnedSubscription(owner: owner, state: state))
            }
        }
        for grant in corrections.grants {
            let revokes = corrections.revokes(otid: grant.attachedTo, owner: grant.owner)
            if let state = state(of: grant, in: index, revokes: revokes, at: at) {
                result.append(OwnedSubscription(owner: grant.owner, state: state))
            }
        }
        result.sort { $0.state.originalTransactionId < $1.state.originalTransactionId }
        return result
    }

    /// What one Apple subscription's state is made of at any instant: its periods, with the operator revokes
    /// that reach it applied, and its last seq.
    private func planned(_ group: Index.Group, owner: Subject, in index: Index, corrections: Corrections)
        -> StatePlan.Subscription
    {
        let revokes = corrections.revokes(otid: group.originalTransactionId, owner: owner)
        var lastSeq: UInt64 = 0
        for member in index.members[group.members] { lastSeq = max(lastSeq, index.facts[member].seq) }
        for revoke in revokes { lastSeq = max(lastSeq, revoke.seq) }
        let revokeTimes = revokes.map(\.from)
        return StatePlan.Subscription(
            group: group, grants: grants(of: group, in: index, revokes: revokeTimes), lastSeq: lastSeq,
            revokes: revokeTimes)
    }

    /// Runs `body` over the entries as one contiguous buffer, copying only when the collection has none.
    private func withContiguous<Result>(
        _ entries: some Collection<LedgerEntry>, _ body: (UnsafeBufferPointer<LedgerEntry>) -> Result
    ) -> Result {
        if let result = entries.withContiguousStorageIfAvailable(body) { return result }
        return Array(entries).withUnsafeBufferPointer(body)
    }
}
