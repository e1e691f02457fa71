import LedgerCore

extension Ledger {
    /// Derives every user's device limit and status at `at` from the log alone (one fold per component, as
    /// ``rebuildProjections(at:progress:)`` does) into a compact ``ProjectionTable``.
    public func projectionTable(at: Instant, progress: ((Int) -> Void)? = nil) throws(ServiceError)
        -> ProjectionTable
    {
        let covered = log.head.seq
        // Both cores: each thread folds its share of the components into its own rows.
        let parts = try foldComponents(progress: progress, into: [ProjectionTable.Entry]()) {
            (rows: inout [ProjectionTable.Entry], records: FoldRecords) throws(ServiceError) in
            rows.append(contentsOf: ProjectionTable.entries(of: records, fold: fold, at: at))
        }
        return ProjectionTable(at: at, coveredSeq: covered, entries: Array(parts.joined()))
    }
}

extension ProjectionTable {
    /// The table's entries for the users of one component (records that can influence each other).
    static func entries(of component: [LedgerEntry], fold: EntitlementFold, at: Instant) -> [Entry] {
        var users: [Int64] = []
        for entry in component {
            if let user = entry.record.subject.userId, !users.contains(user) { users.append(user) }
        }
        guard !users.isEmpty else { return [] }
        return rows(
            users, fold.subscriptions(in: component, at: at, knownAt: nil), nextChange(in: component, after: at))
    }

    /// ``entries(of:fold:at:)`` over records decoded for the fold alone: the same rows.
    static func entries(of component: FoldRecords, fold: EntitlementFold, at: Instant) -> [Entry] {
        let users = component.userIds
        guard !users.isEmpty else { return [] }
        return rows(users, fold.subscriptions(in: component, at: at, knownAt: nil), component.nextChange(after: at))
    }

    /// One row per user: the devices of their entitled subscriptions, their best status.
    private static func rows(_ users: [Int64], _ owned: [OwnedSubscription], _ validUntil: Instant?) -> [Entry] {
        users.map { user in
            var limit = 0
            var best = EntitlementStatus.none
            for item in owned where item.owner.userId == user {
                if item.state.status.isEntitled { limit += item.state.devices }
                if item.state.status.rank < best.rank { best = item.state.status }
            }
            return Entry(userId: user, deviceLimit: limit, status: best, validUntil: validUntil)
        }
    }

    /// The earliest instant after `at` that any record of the component names: purchases, expiries,
    /// revocations, grace ends, signing times, corrections' bounds. The fold's answer cannot change before it.
    static func nextChange(in component: [LedgerEntry], after at: Instant) -> Instant? {
        var next: Instant?
        func consider(_ instant: Instant?) {
            guard let instant, instant > at else { return }
            if next.map({ instant < $0 }) ?? true { next = instant }
        }
        for entry in component {
            let record = entry.record
            consider(record.notification?.signedDate)
            if let transaction = record.transaction {
                consider(transaction.purchaseDate)
                consider(transaction.expiresDate)
                consider(transaction.revocationDate)
                consider(transaction.signedDate)
            }
            if let renewal = record.renewal {
                consider(renewal.signedDate)
                consider(renewal.gracePeriodExpiresDate)
                consider(renewal.renewalDate)
            }
            if let correction = record.correction {
                switch correction.action {
                case .grant(_, let from, let until):
                    consider(from)
                    consider(until)
                case .revoke(let from): consider(from)
                }
            }
        }
        return next
    }
}
