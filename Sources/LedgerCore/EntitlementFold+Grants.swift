extension EntitlementFold {
    /// Why a grant ends where it does.
    enum GrantEnd: Hashable, Sendable {
        /// At the transaction's expiresDate (or the end of the product's period when Apple gave none).
        case expiry
        /// No expiry date and no known period (a product the catalog in force does not know): it grants nothing,
        /// its end is its start.
        case open
        /// Cut by the next transaction of the subscription starting inside it (an upgrade or crossgrade).
        case superseded
        /// Cut by a refund at the transaction's revocationDate.
        case refund
        /// Cut by a Family Sharing revocation at the transaction's revocationDate.
        case familyRevoke
        /// Cut by an operator's revoke correction.
        case operatorRevoke
    }

    /// One transaction's entitlement interval `[start, end)` after every rule has been applied.
    struct Grant {
        var transactionId: FoldText
        var productId: FoldText
        var start: Instant
        var end: Instant
        var ending: GrantEnd
        /// When it was bought: its start, unless it is a pass stacked after another.
        let purchase: Instant
        /// When Apple revoked the transaction, and how; it counts from then even after the natural end.
        var revocation: (at: Instant, kind: GrantEnd)?
        /// The transaction was superseded by an upgrade (sorts first among grants starting together).
        var upgraded: Bool
    }

    /// The grants of one subscription, sorted by start, never overlapping.
    ///
    /// Each transaction's truth is its latest signed version (ties broken by idempotency key, never by
    /// arrival order); a transaction starting inside an earlier one cuts it; a revocation cuts its own
    /// transaction only; an operator revoke at `f` cuts every grant covering `f`.
    func grants(of group: Index.Group, in index: Index, revokes: [Instant]) -> [Grant] {
        let facts = index.facts
        let texts = index.texts
        var grants: [Grant] = []
        grants.reserveCapacity(group.members.count)
        forEachLatestVersion(of: group, in: index) { grants.append(grant(facts, texts, $0)) }
        // Sort by start; at equal starts the superseded (isUpgraded) one first, then by transaction id.
        grants.sortSmall { lhs, rhs in
            if lhs.start != rhs.start { return lhs.start < rhs.start }
            if lhs.upgraded != rhs.upgraded { return lhs.upgraded }
            return texts.identifierPrecedes(lhs.transactionId, rhs.transactionId)
        }
        for position in grants.indices.dropLast() {
            let next = grants[position + 1].start
            if next < grants[position].end {
                grants[position].end = next
                grants[position].ending = .superseded
            }
        }
        Self.cut(&grants, at: revokes)
        return grants
    }

    /// Ends, at each operator revoke's time, every grant that covers it.
    static func cut(_ grants: inout [Grant], at revokes: [Instant]) {
        for from in revokes {
            for position in grants.indices where grants[position].start <= from && from < grants[position].end {
                grants[position].end = from
                grants[position].ending = .operatorRevoke
            }
        }
    }

    /// Calls `body` with the latest version of each transaction of a subscription that is not a consumable: of its
    /// records (members of `index`) that carry one, the latest signed of each transaction id (ties broken by
    /// idempotency key), in no promised order.
    ///
    /// One pass through a small open-addressed table keyed by the id's hash (ids compared where hashes meet, so
    /// two ids sharing a hash stay two transactions), keeping each transaction's latest version so far: a
    /// subscription's dozen versions cost a probe each instead of a sort.
    private func forEachLatestVersion(of group: Index.Group, in index: Index, _ body: (Int) -> Void) {
        let facts = index.facts
        let texts = index.texts
        // Whether version `lhs` is later than `rhs` of the same transaction.
        func later(_ lhs: Int, _ rhs: Int) -> Bool {
            if facts[lhs].transactionSigned != facts[rhs].transactionSigned {
                return facts[lhs].transactionSigned > facts[rhs].transactionSigned
            }
            return texts.precedes(facts[rhs].key, facts[lhs].key)
        }
        let shape = HashSlots(keys: group.members.count)
        let mask = shape.mask
        typealias Slot = (hash: UInt64, member: Int)
        withUnsafeTemporaryAllocation(of: Slot.self, capacity: shape.count) { table in
            table.initialize(repeating: (0, -1))
            defer { _ = table.deinitialize() }
            for member in index.members[group.members] where facts[member].hasTransaction {
                let id = facts[member].transactionId
                let hash = texts.hash(id)
                var slot = shape.first(hash)
                while true {
                    let kept = table[slot]
                    if kept.member < 0 {
                        table[slot] = (hash, member)
                        break
                    }
                    if kept.hash == hash, texts.equal(facts[kept.member].transactionId, id) {
                        if later(member, kept.member) { table[slot].member = member }
                        break
                    }
                    slot = (slot + 1) & mask
                }
            }
            for slot in table where slot.member >= 0 {
                // Used up when bought: nothing to be entitled to.
                if !facts[slot.member].consumable { body(slot.member) }
            }
        }
    }

    /// The interval one transaction version grants on its own: `[purchaseDate, expiresDate)`, or the period of
    /// the product in the catalog in force at the purchase when Apple gave no expiry (nothing, `[purchase,
    /// purchase)`, for a product that catalog does not know), cut at its revocation.
    private func grant(_ facts: [Fact], _ texts: FoldTexts, _ member: Int) -> Grant {
        let start = facts[member].purchase
        var end: Instant
        var ending = GrantEnd.expiry
        if let expires = facts[member].expires {
            end = expires
        } else if let product = catalog(at: start).product(id: texts.string(facts[member].productId)) {
            end = start.adding(product.period) ?? .distantFuture
        } else {
            end = start
            ending = .open
        }
        end = max(end, start)
        var revocation: (at: Instant, kind: GrantEnd)?
        if let revokedAt = facts[member].revocation {
            let kind: GrantEnd = facts[member].familyRevocation ? .familyRevoke : .refund
            revocation = (revokedAt, kind)
            if revokedAt < end {
                end = max(revokedAt, start)
                ending = kind
            }
        }
        return Grant(
            transactionId: facts[member].transactionId, productId: facts[member].productId, start: start, end: end,
            ending: ending, purchase: start, revocation: revocation, upgraded: facts[member].upgraded)
    }

    /// The product a grant is for, as the catalog in force at its start describes it; for a pass stacked into a
    /// version that no longer sells it, as the one in force at its purchase does.
    func product(of grant: Grant, _ texts: FoldTexts) -> Product? {
        let productId = texts.string(grant.productId)
        if let product = catalog(at: grant.start).product(id: productId) { return product }
        guard grant.purchase != grant.start else { return nil }
        return catalog(at: grant.purchase).product(id: productId)
    }
}
