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
        var transactionId: String
        var productId: String
        var start: Instant
        var end: Instant
        var ending: GrantEnd
        /// When Apple revoked the transaction, and how; it counts from then even after the natural end.
        var revocation: (at: Instant, kind: GrantEnd)?
    }

    /// The grants of one subscription, sorted by start, never overlapping.
    ///
    /// Each transaction's truth is its latest signed version (ties broken by idempotency key, never by
    /// arrival order); a transaction starting inside an earlier one cuts it; a revocation cuts its own
    /// transaction only; an operator revoke at `f` cuts every grant covering `f`.
    func grants(of group: Index.Group, in index: Index, revokes: [Instant]) -> [Grant] {
        let entries = index.entries
        var versions: [(id: String, signed: Instant, key: String, member: Int)] = []
        for member in index.members[group.members] where entries[member].record.transaction != nil {
            versions.append(
                (
                    entries[member].record.transaction.unsafelyUnwrapped.transactionId,
                    entries[member].record.transaction.unsafelyUnwrapped.signedDate,
                    entries[member].record.idempotencyKey, member
                ))
        }
        versions.sort { ($0.id, $0.signed, $0.key) < ($1.id, $1.signed, $1.key) }
        var grants: [Grant] = []
        var upgraded: [Bool] = []
        grants.reserveCapacity(versions.count)
        for (position, version) in versions.enumerated() {
            if position + 1 < versions.count, versions[position + 1].id == version.id {
                continue  // a later version of the same transaction follows
            }
            let member = version.member
            let transaction = entries[member].record.transaction.unsafelyUnwrapped
            let start = transaction.purchaseDate
            var end =
                transaction.expiresDate ?? catalog.product(id: transaction.productId).flatMap { start.adding($0.period) }
                ?? .distantFuture
            var ending: GrantEnd = end == .distantFuture ? .open : .expiry
            end = max(end, start)
            var revocation: (at: Instant, kind: GrantEnd)?
            if let revokedAt = transaction.revocationDate {
                let family =
                    transaction.revocationType == familyRevokeType
                    || entries[member].record.notification?.type == NotificationType.revoke
                revocation = (revokedAt, family ? .familyRevoke : .refund)
                if revokedAt < end {
                    end = max(revokedAt, start)
                    ending = family ? .familyRevoke : .refund
                }
            }
            grants.append(
                Grant(
                    transactionId: transaction.transactionId, productId: transaction.productId, start: start,
                    end: end, ending: ending, revocation: revocation))
            upgraded.append(transaction.isUpgraded)
        }
        // Sort by start; at equal starts the superseded (isUpgraded) one first, then by transaction id.
        var order = Array(grants.indices)
        order.sort { lhs, rhs in
            if grants[lhs].start != grants[rhs].start { return grants[lhs].start < grants[rhs].start }
            if upgraded[lhs] != upgraded[rhs] { return upgraded[lhs] }
            return identifierPrecedes(grants[lhs].transactionId, grants[rhs].transactionId)
        }
        var sorted = order.map { grants[$0] }
        for position in sorted.indices.dropLast() {
            let next = sorted[position + 1].start
            if next < sorted[position].end {
                sorted[position].end = next
                sorted[position].ending = .superseded
            }
        }
        for from in revokes {
            for position in sorted.indices where sorted[position].start <= from && from < sorted[position].end {
                sorted[position].end = from
                sorted[position].ending = .operatorRevoke
            }
        }
        return sorted
    }
}
