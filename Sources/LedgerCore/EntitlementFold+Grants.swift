extension EntitlementFold {
    /// Why a grant ends where it does.
    enum GrantEnd: Hashable, Sendable {
        /// At the transaction's expiresDate (or the end of the product's period when Apple gave none).
        case expiry
        /// Never: no expiry date and no known period (a non-expiring purchase).
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
        for from in revokes {
            for position in grants.indices where grants[position].start <= from && from < grants[position].end {
                grants[position].end = from
                grants[position].ending = .operatorRevoke
            }
        }
        return grants
    }

    /// Calls `body` with the latest version of each transaction of a subscription that is not a consumable: of its
    /// records (members of `index`) that carry one, the latest signed of each transaction id (ties broken by
    /// idempotency key), in no promised order.
    private func forEachLatestVersion(of group: Index.Group, in index: Index, _ body: (Int) -> Void) {
        let facts = index.facts
        let texts = index.texts
        func precedes(_ lhs: Int, _ rhs: Int) -> Bool {
            if !texts.equal(facts[lhs].transactionId, facts[rhs].transactionId) {
                return texts.precedes(facts[lhs].transactionId, facts[rhs].transactionId)
            }
            if facts[lhs].transactionSigned != facts[rhs].transactionSigned {
                return facts[lhs].transactionSigned < facts[rhs].transactionSigned
            }
            return texts.precedes(facts[lhs].key, facts[rhs].key)
        }
        typealias Version = (hash: UInt64, signed: Instant, member: Int)
        withUnsafeTemporaryAllocation(of: Version.self, capacity: group.members.count) { buffer in
            var count = 0
            for member in index.members[group.members] where facts[member].hasTransaction {
                buffer.initializeElement(
                    at: count, to: (texts.hash(facts[member].transactionId), facts[member].transactionSigned, member))
                count += 1
            }
            let versions = UnsafeMutableBufferPointer(rebasing: buffer[..<count])
            defer { _ = versions.deinitialize() }
            // A transaction's versions side by side, oldest signed first: by hash, then by signing time (the ids
            // are compared only where both tie). Two transactions whose ids share a hash are then sorted again
            // by id first.
            versions.sortSmall { left, right in
                if left.hash != right.hash { return left.hash < right.hash }
                if left.signed != right.signed { return left.signed < right.signed }
                return precedes(left.member, right.member)
            }
            var run = 0
            while run < count {
                let first = facts[versions[run].member].transactionId
                var end = run + 1
                var mixed = false
                while end < count, versions[end].hash == versions[run].hash {
                    mixed = mixed || !texts.equal(facts[versions[end].member].transactionId, first)
                    end += 1
                }
                if mixed {
                    var tied = UnsafeMutableBufferPointer(rebasing: versions[run..<end])
                    tied.sort { precedes($0.member, $1.member) }
                }
                for position in run..<end {
                    let member = versions[position].member
                    if position + 1 < end,
                        !mixed
                            || texts.equal(
                                facts[versions[position + 1].member].transactionId, facts[member].transactionId)
                    {
                        continue  // a later version of the same transaction follows
                    }
                    if facts[member].consumable { continue }  // used up when bought: nothing to be entitled to
                    body(member)
                }
                run = end
            }
        }
    }

    /// The interval one transaction version grants on its own: `[purchaseDate, expiresDate)`, or the
    /// product's period when Apple gave no expiry, cut at its revocation.
    private func grant(_ facts: [Fact], _ texts: FoldTexts, _ member: Int) -> Grant {
        let start = facts[member].purchase
        var end =
            facts[member].expires
            ?? catalog.product(id: texts.string(facts[member].productId)).flatMap { start.adding($0.period) }
            ?? .distantFuture
        var ending: GrantEnd = end == .distantFuture ? .open : .expiry
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
            ending: ending, revocation: revocation, upgraded: facts[member].upgraded)
    }
}
