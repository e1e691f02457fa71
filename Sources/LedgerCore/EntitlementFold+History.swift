extension EntitlementFold {
    /// The entries about a subject, deduplicated, in history order (effective time, then sequence number).
    ///
    /// For a user or account: every record of the subscriptions they own (their own tokens, or linked to
    /// them), and the corrections addressed to them or to one of those subscriptions. For an original
    /// transaction id: that subscription's records and the corrections addressed to it.
    public func history(
        of query: SubjectQuery, entries: some Collection<LedgerEntry>, knownAt: Instant?
    ) -> [LedgerEntry] {
        let pick = { (buffer: UnsafeBufferPointer<LedgerEntry>) -> [LedgerEntry] in
            sortedHistory(select(query, buffer, knownAt).map { buffer[$0] })
        }
        if let result = entries.withContiguousStorageIfAvailable(pick) { return result }
        return Array(entries).withUnsafeBufferPointer(pick)
    }

    private func select(_ query: SubjectQuery, _ buffer: UnsafeBufferPointer<LedgerEntry>, _ knownAt: Instant?)
        -> [Int]
    {
        var only: String?
        if case .originalTransaction(let otid) = query { only = otid }
        let query = Self.canonical(query)
        let index = Index(buffer, knownAt: knownAt, only: only)
        var picked: [Int] = []
        var ownedIds = Set<String>()
        for group in index.groups {
            if only == nil, !Self.owner(Self.owner(of: group, in: index), matches: query) { continue }
            ownedIds.insert(group.originalTransactionId)
            picked += index.members[group.members].map { index.facts[$0].entry }
        }
        for member in index.corrections {
            let subject = index.record(member).subject
            if let otid = subject.originalTransactionId, ownedIds.contains(otid) || otid == only {
                picked.append(member)
            } else if only == nil, subject.userId != nil || subject.appAccountToken != nil,
                Self.owner(Self.owner(token: subject.appAccountToken, userId: subject.userId), matches: query)
            {
                picked.append(member)
            }
        }
        return picked
    }

    /// By effective time, then sequence number, then idempotency key (distinct once deduplicated): one order
    /// whatever the input's.
    private func sortedHistory(_ entries: [LedgerEntry]) -> [LedgerEntry] {
        let keys = entries.map(\.effectiveAt)
        let order = entries.indices.sorted { lhs, rhs in
            if keys[lhs] != keys[rhs] { return keys[lhs] < keys[rhs] }
            if entries[lhs].seq != entries[rhs].seq { return entries[lhs].seq < entries[rhs].seq }
            return entries[lhs].record.idempotencyKey < entries[rhs].record.idempotencyKey
        }
        return order.map { entries[$0] }
    }
}
