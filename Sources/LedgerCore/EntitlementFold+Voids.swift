extension EntitlementFold {
    /// `entries` without the records their voids take out, nor the voids: what a reader that does not fold (a
    /// sales or events report) counts, as the fold counts it (see ``Index``). A void takes out the record of its
    /// seq and that record's copies (its idempotency key under other seqs); a void of a void takes out nothing.
    /// Cut the entries at a knowledge limit first: a void recorded after it must not count.
    public static func withoutVoided(_ entries: [LedgerEntry]) -> [LedgerEntry] {
        var voidSeqs = Set<UInt64>()
        var named = Set<UInt64>()
        for entry in entries where entry.record.source == .void || entry.record.void != nil {
            voidSeqs.insert(entry.seq)
            if let void = entry.record.void { named.insert(void.seq) }
        }
        guard !voidSeqs.isEmpty else { return entries }
        var keys = Set<String>()
        for entry in entries where named.contains(entry.seq) && !voidSeqs.contains(entry.seq) {
            keys.insert(entry.record.idempotencyKey)
        }
        return entries.filter { !voidSeqs.contains($0.seq) && !keys.contains($0.record.idempotencyKey) }
    }
}
