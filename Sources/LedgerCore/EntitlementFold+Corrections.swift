extension EntitlementFold {
    /// How an operator's grant's subscription id begins (``grantSubscriptionId(idempotencyKey:)``).
    public static let grantPrefix = "correction:"

    /// The subscription an operator's grant makes, named after the correction's idempotency key: `correction:<key>`
    /// with the prefix once. The ledger's keys start with it already (`correction:<hex>`), which the name once
    /// repeated (`correction:correction:<hex>`); records are read as they are, only the name changed.
    public static func grantSubscriptionId(idempotencyKey key: String) -> String {
        key.hasPrefix(grantPrefix) ? key : grantPrefix + key
    }

    /// The visible operator corrections, indexed for the fold.
    ///
    /// A grant becomes a subscription of its own (``grantSubscriptionId(idempotencyKey:)``) owned by the correction's
    /// subject; a revoke applies to every grant of its subject. A subject is either one subscription (the
    /// original transaction id) or a user/account.
    struct Corrections {
        struct GrantCorrection {
            let member: Int
            let owner: Subject
            /// The subscription the grant was addressed to, when the subject was one.
            let attachedTo: String?
            let productId: String
            let from: Instant
            let until: Instant
        }

        struct Revoke {
            let from: Instant
            let seq: UInt64
        }

        private(set) var grants: [GrantCorrection] = []
        private var byOTID: [String: [Revoke]] = [:]
        private var byUser: [Int64: [Revoke]] = [:]
        private var byToken: [String: [Revoke]] = [:]

        /// None: an index without corrections.
        init() {}

        /// The corrections of `index`, a grant addressed to a subscription owned by that subscription's owner.
        /// Without corrections, none, and the index is not copied into the closure that finds owners.
        static func of(_ index: Index) -> Corrections {
            guard !index.corrections.isEmpty else { return Corrections() }
            return Corrections(index) { otid in
                index.group(otid).map { EntitlementFold.owner(of: $0, in: index) } ?? Subject()
            }
        }

        init(_ index: Index, ownerOf: (String) -> Subject) {
            for member in index.corrections {
                let record = index.record(member)
                guard let correction = record.correction else { continue }
                let subject = record.subject
                let seq = index.facts[member].seq
                switch correction.action {
                case .grant(let productId, let from, let until):
                    let explicit = EntitlementFold.owner(token: subject.appAccountToken, userId: subject.userId)
                    let owner =
                        explicit.userId != nil || explicit.appAccountToken != nil
                        ? explicit : subject.originalTransactionId.map(ownerOf) ?? Subject()
                    grants.append(
                        GrantCorrection(
                            member: member, owner: owner, attachedTo: subject.originalTransactionId,
                            productId: productId, from: from, until: until))
                case .revoke(let from):
                    let revoke = Revoke(from: from, seq: seq)
                    if let otid = subject.originalTransactionId {
                        byOTID[otid, default: []].append(revoke)
                    } else {
                        let owner = EntitlementFold.owner(token: subject.appAccountToken, userId: subject.userId)
                        if let user = owner.userId {
                            byUser[user, default: []].append(revoke)
                        } else if let token = owner.appAccountToken {
                            byToken[token, default: []].append(revoke)
                        }
                    }
                }
            }
        }

        /// The revokes that apply to a subscription (by its id, or by its owner).
        func revokes(otid: String?, owner: Subject) -> [Revoke] {
            if byOTID.isEmpty && byUser.isEmpty && byToken.isEmpty { return [] }
            var found: [Revoke] = []
            if let otid, let direct = byOTID[otid] { found += direct }
            if let user = owner.userId, let revokes = byUser[user] { found += revokes }
            if let token = owner.appAccountToken, let revokes = byToken[token] {
                // A revoke addressed to a token that is also a user was filed under the user.
                if owner.userId == nil || AccountToken.userId(fromToken: token) == nil { found += revokes }
            }
            return found
        }
    }

    /// The state of an operator's grant at `at`, or nil before it starts.
    func state(of grant: Corrections.GrantCorrection, in index: Index, revokes: [Corrections.Revoke], at: Instant)
        -> SubscriptionState?
    {
        guard grant.from <= at else { return nil }
        var end = max(grant.until, grant.from)
        var revoked = false
        for revoke in revokes where grant.from <= revoke.from && revoke.from < end {
            end = revoke.from
            revoked = true
        }
        let status: EntitlementStatus = at < end ? .active : revoked ? .revoked : .expired
        let product = catalog(at: grant.from).product(id: grant.productId)
        let seq = revokes.reduce(index.facts[grant.member].seq) { max($0, $1.seq) }
        return SubscriptionState(
            originalTransactionId: Self.grantSubscriptionId(
                idempotencyKey: index.texts.string(index.facts[grant.member].key)),
            productId: grant.productId, productKnown: product != nil,
            devices: product?.devices ?? 0, period: product?.period.name, status: status, since: grant.from,
            expiresAt: end, gracePeriodExpiresAt: nil, autoRenew: nil, pendingProductId: nil, lastSeq: seq)
    }
}
