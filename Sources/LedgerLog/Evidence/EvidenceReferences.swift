import LedgerCrypto
import LedgerStore
import LedgerSystem

/// Where a record's payload names the evidence it refers to: given the payload, the range of the 32 bytes in it
/// that are the evidence's SHA-256, or nil when the record refers to none.
///
/// The log stores payloads opaque; the layer that encodes them says where their reference is (the ledger's
/// records: `LedgerRecord.evidenceRange(inEncoded:)`). With it the log tells evidence that records rely on from a
/// torn write: the writer syncs evidence before the records that refer to it, so evidence a record refers to is
/// durable, and bytes of it that fail their checksums are damage, never a torn tail to cut.
public typealias EvidenceReferenceFinder = @Sendable (UnsafeRawBufferPointer) -> Range<Int>?

extension EventLog {
    /// The writer's open: indexes the evidence packs and cuts the bytes after the last pack's last valid entry
    /// (keeping them in `lost+found`) — unless a record refers to evidence in them, which was synced before that
    /// record and so is damage: then nothing is cut and the open fails with ``LogError/Code/damaged``, naming the
    /// pack, the offset and the record. The log is only scanned for references when there is a tail to cut.
    func recoverEvidence() throws(LogError) {
        let packs = evidencePacks
        let tail: EvidenceTail?
        do {
            tail = try packs.lock.withLock { () throws(SystemError) in
                try packs.loadLocked()
                return packs.state.tail
            }
        } catch {
            throw LogError.system(error, "recovering the evidence packs in \(directory.evidence)")
        }
        if let tail {
            let (segments, headSeq) = lock.withLock { (state.segments, state.head.seq) }
            if let (seq, digest) = try EvidenceReferences.firstReference(
                fileSystem, segments, through: headSeq, finder: options.evidenceReferences,
                to: Set(tail.digests.keys))
            {
                let offset = tail.digests[digest] ?? tail.offset
                throw LogError(
                    .damaged,
                    EvidenceReferences.referencedTailMessage(
                        pack: packs.path(tail.number), offset: offset, seq: seq, digest: digest, nothingCut: true))
            }
        }
        do {
            try packs.lock.withLock { () throws(SystemError) in try packs.finishRecoveryLocked() }
        } catch {
            throw LogError.system(error, "cutting the torn tail of \(packs.path(tail?.number ?? 0))")
        }
    }
}

/// Finding the records that refer to evidence, and naming evidence: for the writer's open, `verify` and `repair`.
enum EvidenceReferences {
    /// What bytes at the end of a pack that a record refers to are: damage.
    static func referencedTailMessage(
        pack: String, offset: Int64, seq: UInt64, digest: EvidenceDigest, nothingCut: Bool
    ) -> String {
        "evidence pack \(pack) is damaged at byte \(offset): the entry there fails its checksum, and record \(seq) "
            + "refers to it (SHA-256 \(Hex.encode(digest.bytes))). It was synced before that record was written, so "
            + "this is damage, not a torn write\(nothingCut ? "; nothing was cut" : ""). Restore the pack from a "
            + "backup"
    }

    /// The first record (seq, and the digest it refers to) whose evidence reference is one of `digests`, reading
    /// the records through `headSeq`; nil when none is, or without a finder.
    static func firstReference(
        _ fileSystem: any FileSystem, _ segments: [Segment], through headSeq: UInt64,
        finder: EvidenceReferenceFinder?, to digests: Set<EvidenceDigest>
    ) throws(LogError) -> (seq: UInt64, digest: EvidenceDigest)? {
        guard let finder, !digests.isEmpty else { return nil }
        var found: (seq: UInt64, digest: EvidenceDigest)?
        try SegmentReader.scan(fileSystem, segments, from: 1, through: headSeq, checkCRC: false) { view, _, _ in
            guard let digest = reference(view.payload, finder), digests.contains(digest) else { return true }
            found = (view.seq, digest)
            return false
        }
        return found
    }

    /// The evidence a payload refers to, by `finder`; nil when none (or the range it gives is not 32 bytes of
    /// the payload).
    @inline(__always)
    static func reference(_ payload: UnsafeRawBufferPointer, _ finder: EvidenceReferenceFinder) -> EvidenceDigest? {
        guard let range = finder(payload), range.count == 32, range.lowerBound >= 0, range.upperBound <= payload.count
        else { return nil }
        return EvidenceDigest(UnsafeRawBufferPointer(rebasing: payload[range]))
    }

    /// Where earlier versions kept one piece of evidence: `<root>/<first 2 hex>/<other hex>` of its digest.
    static func legacyPath(root: String, digest: [UInt8]) -> String {
        let hex = Hex.encode(digest)
        return Path.join(Path.join(root, String(hex.prefix(2))), String(hex.dropFirst(2)))
    }
}
