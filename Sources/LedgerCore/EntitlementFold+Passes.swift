extension EntitlementFold {
    /// Whose passes stack with a subscription's: its owner's (a user, else an account token), an orphan's only
    /// with its own.
    static func passOwner(_ owner: Subject, of group: Index.Group) -> String {
        owner.userId.map { "u:\($0)" } ?? owner.appAccountToken.map { "a:\($0)" } ?? "o:\(group.originalTransactionId)"
    }

    /// Stacks the non-renewing passes of each owner: a pass bought while another of the same owner is active
    /// starts when that one ends, so that passes never overlap (the seed: an app must not let passes overlap) and
    /// never double the device limit.
    ///
    /// A pass is a transaction whose product the catalog in force at its purchase declares
    /// ``ProductKind/nonRenewing``. The passes of one owner (a user, else an account token; an orphan's passes only
    /// among themselves) are taken by purchase date, then transaction id, then subscription: each starts at the
    /// later of its purchase and the end of the one before, lasts the period of its product in the catalog in force
    /// at that start (the one at its purchase should that catalog not know the product), and is cut by its own
    /// refund or Family Sharing revocation; the owner's operator revokes are applied after. Pure: the order
    /// depends on the facts alone.
    func stackPasses(_ plans: inout [StatePlan.Subscription], owners: [Subject], in index: Index) {
        // Most catalogs sell no pass: then no grant's product needs looking up (a sixth of a rebuild's time).
        guard catalogs.sellsPasses else { return }
        let texts = index.texts
        typealias Pass = (plan: Int, grant: Int, owner: String)
        var passes: [Pass] = []
        for (planIndex, plan) in plans.enumerated() {
            for (grantIndex, grant) in plan.grants.enumerated() {
                guard catalog(at: grant.start).product(id: texts.string(grant.productId))?.kind == .nonRenewing
                else { continue }
                passes.append((planIndex, grantIndex, Self.passOwner(owners[planIndex], of: plan.group)))
            }
        }
        guard !passes.isEmpty else { return }
        passes.sort { lhs, rhs in
            if lhs.owner != rhs.owner { return lhs.owner < rhs.owner }
            let left = plans[lhs.plan].grants[lhs.grant]
            let right = plans[rhs.plan].grants[rhs.grant]
            if left.start != right.start { return left.start < right.start }
            if !texts.equal(left.transactionId, right.transactionId) {
                return texts.identifierPrecedes(left.transactionId, right.transactionId)
            }
            return plans[lhs.plan].group.originalTransactionId < plans[rhs.plan].group.originalTransactionId
        }
        var touched = Set<Int>()
        var owner = ""
        var cursor = Instant.distantPast
        for pass in passes {
            if pass.owner != owner {
                owner = pass.owner
                cursor = .distantPast
            }
            var grant = plans[pass.plan].grants[pass.grant]
            let start = max(grant.purchase, cursor)
            grant.start = start
            var end = product(of: grant, texts).flatMap { start.adding($0.period) } ?? .distantFuture
            var ending = GrantEnd.expiry
            if let revocation = grant.revocation, revocation.at < end {
                end = max(revocation.at, start)
                ending = revocation.kind
            }
            grant.end = end
            grant.ending = ending
            plans[pass.plan].grants[pass.grant] = grant
            touched.insert(pass.plan)
            cursor = max(cursor, end)
        }
        for planIndex in touched {
            plans[planIndex].grants.sortSmall { lhs, rhs in
                if lhs.start != rhs.start { return lhs.start < rhs.start }
                return texts.identifierPrecedes(lhs.transactionId, rhs.transactionId)
            }
            Self.cut(&plans[planIndex].grants, at: plans[planIndex].revokes)
        }
    }
}
