import LedgerStore
import LedgerSystem

extension EventLog {
    /// The writer's open, after the evidence packs are indexed: cuts the records of a last, unacknowledged batch
    /// whose evidence did not survive a crash, and returns what it cut (nil: nothing to cut).
    ///
    /// A batch's leader syncs the evidence packs while it writes and syncs the batch's records
    /// (``BatchWriter/write(_:_:_:)``), and acknowledges the batch only once both are durable; the next batch starts
    /// only then. So a crash can leave records whose evidence is missing only in the last batch: at most
    /// ``BatchWriter/maxOverlappedRecords`` records, all at the end of the last segment. Only those last records are
    /// read; the first of them whose evidence the packs (or the per-file layout) do not hold, and every record after
    /// it, are cut like a torn tail (copied to `lost+found`, then the segment truncated and fsynced). The caller
    /// reopens the directory, so the indexes are built for the log as it now is.
    func cutUnbackedRecords() throws(LogError) -> RecoveryReport? {
        guard let finder = options.evidenceReferences else { return nil }
        // One snapshot: the segments and the head they end at.
        let (current, headSeq) = lock.withLock { (state.segments, state.head.seq) }
        var segments = current
        guard let last = segments.indices.last, !segments[last].offsets.isEmpty else { return nil }
        let firstSeq = segments[last].firstSeq
        let window = UInt64(BatchWriter.maxOverlappedRecords)
        let from = headSeq >= firstSeq + window ? headSeq - window + 1 : firstSeq
        let first = try evidencePacks.firstUnbacked(
            in: segments[last], from: from, through: headSeq, references: finder)
        guard let first else { return nil }
        return try LogOpening.cutTail(
            fileSystem, directory, &segments, at: (last, first.offset), headSeq: first.seq - 1)
    }
}
