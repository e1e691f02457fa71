import LedgerCore

extension Ledger {
    /// Derives every user's device limit and status at `at` from the log alone (one fold per component, as
    /// ``rebuildProjections(at:progress:)`` does) into a compact ``ProjectionTable``.
    public func projectionTable(at: Instant, progress: ((Int) -> Void)? = nil) throws(ServiceError)
        -> ProjectionTable
    {
        let covered = log.head.seq
        // Both cores: each thread folds its share of the components into its own rows, with one fold.
        let fold = self.fold
        let parts = try foldComponents(progress: progress, into: [ProjectionTable.Entry]()) {
            (rows: inout [ProjectionTable.Entry], records: FoldRecords) throws(ServiceError) in
            rows.append(contentsOf: ProjectionTable.entries(of: records, fold: fold, at: at))
        }
        return ProjectionTable(at: at, coveredSeq: covered, entries: Array(parts.joined()))
    }
}

extension ProjectionTable {
    /// The table's entries for the users of one component (records that can influence each other), from its
    /// whole entries: the rows of the same records handed to the fold as ``FoldRecords``.
    static func entries(of component: [LedgerEntry], fold: EntitlementFold, at: Instant) -> [Entry] {
        var records = FoldRecords()
        for entry in component { records.append(entry) }
        return entries(of: records, fold: fold, at: at)
    }

    /// The table's entries for the users of one component, over records decoded for the fold alone.
    static func entries(of component: FoldRecords, fold: EntitlementFold, at: Instant) -> [Entry] {
        let users = component.userIds
        guard !users.isEmpty else { return [] }
        let owned = fold.subscriptions(in: component, at: at, knownAt: nil)
        // A period's end need not be an instant of a record (a pass's, worked out from the catalog): the rows hold
        // until the first end after `at` too.
        var validUntil = component.nextChange(after: at)
        for item in owned {
            if let end = item.state.expiresAt, end > at, validUntil.map({ end < $0 }) ?? true { validUntil = end }
        }
        return rows(users, owned, validUntil)
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
}
