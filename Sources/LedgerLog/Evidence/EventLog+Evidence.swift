import LedgerCrypto
import LedgerStore
import LedgerSystem

extension EventLog {
    /// Stores raw evidence (e.g. a signed notification payload) content-addressed by its SHA-256, durably, before
    /// returning the digest. Storing the same bytes again is a no-op. Store the evidence before appending the
    /// record that references it.
    @discardableResult
    public func putEvidence(_ bytes: [UInt8]) throws(LogError) -> [UInt8] {
        try putEvidence(batch: [bytes])[0]
    }

    /// Stores several pieces of evidence durably; returns their digests in order.
    ///
    /// The new pieces are appended to the current evidence pack with one write, made durable with one
    /// `fdatasync` of the pack.
    public func putEvidence(batch: [[UInt8]]) throws(LogError) -> [[UInt8]] {
        try putEvidence(batch: batch, durable: true)
    }

    /// Stores evidence; with `durable: false` the pieces are appended to the pack without a sync, and the caller
    /// must append the records that reference them with ``append(_:syncingEvidenceFirst:)`` and `true`, which
    /// makes them durable (one `fdatasync` of the pack for the whole group commit) before the records.
    public func putEvidence(batch: [[UInt8]], durable: Bool) throws(LogError) -> [[UInt8]] {
        let hashed = batch.map(HashedBytes.init)
        try putEvidence(hashed: hashed, durable: durable)
        return hashed.map(\.sha256)
    }

    /// ``putEvidence(batch:durable:)`` for evidence hashed already (while it was verified): stored under the
    /// digest it carries.
    public func putEvidence(hashed batch: [HashedBytes], durable: Bool) throws(LogError) {
        guard isWriter else { throw LogError(.notWritable, "this log was opened for reading; open it as the writer") }
        try evidencePacks.store(batch, durable: durable)
    }

    /// Writes a piece of evidence again when the copy stored under its digest is damaged or missing (Apple
    /// delivering a notification again is a second chance to keep its original), durably; returns whether it did.
    /// Reads and hashes the stored copy first, so intact evidence is left as it is.
    public func restoreEvidence(_ piece: HashedBytes) throws(LogError) -> Bool {
        guard isWriter else { throw LogError(.notWritable, "this log was opened for reading; open it as the writer") }
        return try evidencePacks.restore(piece)
    }

    /// The evidence with this SHA-256, or nil when none is stored. Looks in the evidence packs, then at the
    /// per-file path earlier versions wrote (`evidence/<2 hex>/<62 hex>`).
    /// - Throws: ``LogError/Code/evidenceDamaged`` when the stored bytes no longer hash to their name (or their
    ///   pack entry fails its checksum).
    public func evidence(_ sha256: [UInt8]) throws(LogError) -> [UInt8]? {
        try evidencePacks.evidence(sha256)
    }

    /// Where the evidence with this digest is in the packs: the pack's path, the entry's offset (its header; the
    /// body follows after 56 bytes) and the body's length. Nil when no pack holds it.
    public func evidenceLocation(_ sha256: [UInt8]) -> (path: String, offset: Int64, length: Int)? {
        EvidenceDigest(sha256).flatMap { evidencePacks.location($0) }
    }

    /// Where earlier versions kept the evidence with this digest, one file each:
    /// `evidence/<first 2 hex>/<other 62 hex>` (still read by ``evidence(_:)``).
    public func evidencePath(_ sha256: [UInt8]) -> String {
        EvidenceReferences.legacyPath(root: directory.evidence, digest: sha256)
    }
}
