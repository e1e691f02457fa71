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
        let packs = evidencePacks
        let root = directory.evidence
        do {
            try packs.lock.withLock { () throws(SystemError) in try packs.loadLocked() }
        } catch {
            throw LogError.system(error, "recovering the evidence packs in \(directory.evidence)")
        }
        var first: (seq: UInt64, offset: Int64)?
        var failure: SystemError?
        try SegmentReader.scan(fileSystem, [segments[last]], from: from, through: headSeq, checkCRC: false) {
            view, _, offset in
            guard let digest = EvidenceReferences.reference(view.payload, finder) else { return true }
            let (indexed, tail) = packs.lock.withLock { (packs.state.index[digest] != nil, packs.state.tail) }
            if indexed { return true }
            if let tail, let start = tail.digests[digest] {
                // Named by an entry after the last valid one: cut if the crash tore the entry's write; an entry
                // all there that fails its checksums is damage, which the evidence recovery refuses to cut.
                if !tail.holdsTornEntry(at: start) { return true }
            } else {
                do throws(SystemError) {
                    let held = try packs.holds(digest) { digest in
                        EvidenceReferences.legacyPath(root: root, digest: withUnsafeBytes(of: digest) { Array($0) })
                    }
                    if held { return true }
                } catch {
                    failure = error
                    return false
                }
            }
            first = (view.seq, offset)
            return false
        }
        if let failure { throw LogError.system(failure, "reading the evidence packs in \(directory.evidence)") }
        guard let first else { return nil }
        return try LogOpening.cutTail(
            fileSystem, directory, &segments, at: (last, first.offset), headSeq: first.seq - 1)
    }
}

extension EvidenceTail {
    /// Whether the entry starting at pack offset `start` in these bytes is what a crash leaves of a write not yet
    /// synced: its header, or the body its intact header announces, runs past the end of the pack; or, from a
    /// 512-byte boundary of the pack on, a part of it reads as zeros (blocks whose data never reached the disk) up
    /// to the next boundary or the entry's end, at least 8 bytes of it or all of the entry's rest. A flipped byte
    /// in an entry that is all there is damage instead.
    func holdsTornEntry(at start: Int64) -> Bool {
        let position = Int(start - offset)
        guard position >= 0, position <= bytes.count else { return false }
        guard position + EvidencePack.headerSize <= bytes.count else { return true }
        let header = bytes.withUnsafeBytes { EvidencePack.decodeHeader($0.baseAddress! + position) }
        let end: Int
        if let header {
            if Int64(position) + header.entrySize > Int64(bytes.count) { return true }
            end = position + Int(header.entrySize)
        } else {
            end = bytes.count
        }
        let sector: Int64 = 512
        var boundary = Int(((start + sector - 1) / sector * sector) - offset)
        while boundary < end {
            let stop = min(boundary + Int(sector), end)
            if stop - boundary >= 8 || stop == end, bytes[boundary..<stop].allSatisfy({ $0 == 0 }) { return true }
            boundary += Int(sector)
        }
        return false
    }
}
