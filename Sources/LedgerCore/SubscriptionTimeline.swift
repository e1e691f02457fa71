/// One subscription's grants and renewal states, built from its entries: the part of the fold that
/// knows Apple's subscription rules.
///
/// - A transaction grants its product over `[purchaseDate, expiresDate)`; its latest signed version is its
///   truth (a revocation ends it there, a reinstatement or an extension re-signs it).
/// - Grants never overlap: one that starts inside an earlier one cuts it (an immediate upgrade or crossgrade).
/// - After a grant lapses: billing grace while Apple says so, billing retry while it retries, else expired;
///   refunded or revoked when a revocation ended it.
struct SubscriptionTimeline {
    /// Why a grant ended where it ends.
    enum EndReason: Equatable {
        case expiry
        case superseded
        case refund
        case familyRevoke
        case operatorRevoke
    }

    struct Grant {
        var start: Instant
        var end: Instant
        var productId: String
        var transactionId: String
        var reason: EndReason
    }

    struct RenewalPoint {
        var signedDate: Instant
        var key: String
        var facts: RenewalFacts?
        var notificationType: String?
    }

    let originalTransactionId: String
    let catalog: Catalog
    private(set) var grants: [Grant] = []
    private(set) var renewals: [RenewalPoint] = []
    let lastSeq: UInt64

    init(originalTransactionId: String, entries: [LedgerEntry], catalog: Catalog) {
        self.originalTransactionId = originalTransactionId
        self.catalog = catalog
        self.lastSeq = entries.map(\.seq).max() ?? 0
        var latest: [String: (facts: TransactionFacts, key: String)] = [:]
        var familyRevoked = Set<String>()
        for entry in entries {
            let record = entry.record
            let type = record.notification?.type
            if let transaction = record.transaction {
                let key = record.idempotencyKey
                if let current = latest[transaction.transactionId],
                    (current.facts.signedDate, current.key) >= (transaction.signedDate, key)
                {
                } else {
                    latest[transaction.transactionId] = (transaction, key)
                }
                if type == "REVOKE" { familyRevoked.insert(transaction.transactionId) }
            }
            if record.renewal != nil || type == "DID_FAIL_TO_RENEW" || type == "EXPIRED"
                || type == "GRACE_PERIOD_EXPIRED"
            {
                let signed = record.renewal?.signedDate ?? record.notification?.signedDate
                if let signed {
                    renewals.append(
                        RenewalPoint(signedDate: signed, key: record.idempotencyKey, facts: record.renewal, notificationType: type))
                }
            }
        }
        renewals.sort { ($0.signedDate, $0.key) < ($1.signedDate, $1.key) }
        var built: [Grant] = []
        for (id, version) in latest {
            let facts = version.facts
            let start = facts.purchaseDate
            var end = naturalEnd(of: facts)
            var reason = EndReason.expiry
            if let revoked = facts.revocationDate, revoked < end {
                end = max(start, revoked)
                if facts.isUpgraded {
                    reason = .superseded
                } else if facts.revocationType == "FAMILY_REVOKE" || familyRevoked.contains(id) {
                    reason = .familyRevoke
                } else {
                    reason = .refund
                }
            }
            built.append(Grant(start: start, end: max(start, end), productId: facts.productId, transactionId: id, reason: reason))
        }
        built.sort { ($0.start, $0.transactionId) < ($1.start, $1.transactionId) }
        for index in built.indices.dropLast() where built[index + 1].start < built[index].end {
            built[index].end = built[index + 1].start
            built[index].reason = .superseded
        }
        grants = built
    }

    init(grant: CorrectionGrant, catalog: Catalog) {
        self.originalTransactionId = grant.id
        self.catalog = catalog
        self.lastSeq = grant.seq
        self.grants = [
            Grant(start: grant.from, end: max(grant.from, grant.until), productId: grant.productId, transactionId: grant.id, reason: .expiry)
        ]
    }

    /// Where a transaction ends by itself: its expiresDate; for a non-renewing catalog product without one,
    /// one period after the purchase; otherwise (a product that does not expire) nowhere past its start.
    private func naturalEnd(of facts: TransactionFacts) -> Instant {
        if let expires = facts.expiresDate { return expires }
        guard let product = catalog.product(id: facts.productId), product.kind == .nonRenewing else {
            return facts.purchaseDate
        }
        if let months = product.period.months { return facts.purchaseDate.adding(months: months) }
        if let days = product.period.days { return facts.purchaseDate.adding(milliseconds: Int64(days) * 86_400_000) }
        return facts.purchaseDate
    }

    /// Operator revocations end, at their instant, every grant covering it.
    mutating func applyRevocations(_ instants: [Instant]) {
        for instant in instants {
            for index in grants.indices where grants[index].start <= instant && instant < grants[index].end {
                grants[index].end = instant
                grants[index].reason = .operatorRevoke
            }
        }
    }
}
