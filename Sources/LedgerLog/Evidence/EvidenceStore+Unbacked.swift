import LedgerStore
import LedgerSystem

/// Which records the evidence packs do not back: for the writer's open after a crash (see
/// ``EventLog/cutUnbackedRecords()``).
extension EvidenceStore {
    /// The first record of `segment` from `from` through `through` whose evidence (named by `references`) neither
    /// the packs nor the per-file layout hold, or whose pack entry a crash tore; nil when every one is backed. An
    /// entry all there that fails its checksums is damage, not a torn write, and backs its record here: the
    /// evidence recovery refuses to cut it.
    func firstUnbacked(
        in segment: Segment, from: UInt64, through: UInt64, references: EvidenceReferenceFinder
    ) throws(LogError) -> (seq: UInt64, offset: Int64)? {
        do {
            try lock.withLock { () throws(SystemError) in try loadLocked() }
        } catch {
            throw LogError.system(error, "recovering the evidence packs in \(folder)")
        }
        // A pack exists from before the first write to it (created, then fsynced with its directory): with none
        // at all, the evidence was removed, not torn by a crash, and cutting would drop acknowledged records.
        // The bytes past the last pack's last valid entry, and the stretches the scan skipped, do not change
        // while the open recovers.
        let (packed, stretches) = lock.withLock {
            (!state.packs.isEmpty || state.hasLegacy, [state.tail].compactMap { $0 } + state.skipped)
        }
        guard packed else { return nil }
        var first: (seq: UInt64, offset: Int64)?
        var failure: SystemError?
        try SegmentReader.scan(fileSystem, [segment], from: from, through: through, checkCRC: false) {
            view, _, offset in
            guard let digest = EvidenceReferences.reference(view.payload, references) else { return true }
            if lock.withLock({ state.index[digest] != nil }) { return true }
            // Named by an entry after the last valid one, or in an unreadable stretch valid entries follow:
            // unbacked only if a crash tore the entry's write; a flipped byte in an entry all there is damage.
            let stretch = stretches.first { $0.digests[digest] != nil }
            if let stretch, let start = stretch.digests[digest] {
                if !stretch.holdsTornEntry(at: start) { return true }
            } else {
                do throws(SystemError) {
                    if try holds(digest) { return true }
                } catch {
                    failure = error
                    return false
                }
            }
            first = (view.seq, offset)
            return false
        }
        if let failure { throw LogError.system(failure, "reading the evidence packs in \(folder)") }
        return first
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
