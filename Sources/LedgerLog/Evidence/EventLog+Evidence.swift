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
        for piece in batch where piece.bytes.count > EvidencePack.maxBody {
            throw LogError(.invalidEntry, "a piece of evidence holds at most 4 GiB (got \(piece.bytes.count) bytes)")
        }
        let root = directory.evidence
        do {
            try evidencePacks.put(batch, durable: durable) { digest in
                EvidenceReferences.legacyPath(root: root, digest: withUnsafeBytes(of: digest) { Array($0) })
            }
        } catch {
            throw LogError.system(error, "storing evidence in \(directory.evidence)")
        }
    }

    /// Writes a piece of evidence again when the copy stored under its digest is damaged or missing (Apple
    /// delivering a notification again is a second chance to keep its original), durably; returns whether it did.
    /// Reads and hashes the stored copy first, so intact evidence is left as it is.
    public func restoreEvidence(_ piece: HashedBytes) throws(LogError) -> Bool {
        guard isWriter else { throw LogError(.notWritable, "this log was opened for reading; open it as the writer") }
        guard let digest = EvidenceDigest(piece.sha256) else {
            throw LogError(.invalidEntry, "an evidence digest is 32 bytes (got \(piece.sha256.count))")
        }
        do {
            if try evidence(piece.sha256) != nil { return false }
        } catch {
            guard error.code == .evidenceDamaged else { throw error }
        }
        let root = directory.evidence
        do {
            try evidencePacks.put([piece], durable: true, replacing: [digest]) { digest in
                EvidenceReferences.legacyPath(root: root, digest: withUnsafeBytes(of: digest) { Array($0) })
            }
        } catch {
            throw LogError.system(error, "storing evidence in \(directory.evidence)")
        }
        return true
    }

    /// The evidence with this SHA-256, or nil when none is stored. Looks in the evidence packs, then at the
    /// per-file path earlier versions wrote (`evidence/<2 hex>/<62 hex>`).
    /// - Throws: ``LogError/Code/evidenceDamaged`` when the stored bytes no longer hash to their name (or their
    ///   pack entry fails its checksum).
    public func evidence(_ sha256: [UInt8]) throws(LogError) -> [UInt8]? {
        guard let digest = EvidenceDigest(sha256) else { return nil }
        let bytes: [UInt8]
        let source: String
        if let packed = try evidencePacks.read(digest) {
            bytes = packed
            source = evidenceLocation(sha256).map { "at byte \($0.offset) of \($0.path)" } ?? "in the packs"
        } else {
            let path = evidencePath(sha256)
            let file: [UInt8]?
            do {
                file = try fileSystem.readFile(path)
            } catch {
                throw LogError.system(error, "reading evidence \(path)")
            }
            guard let file else { return nil }
            bytes = file
            source = path
        }
        guard SHA256.hash(bytes) == sha256 else {
            throw LogError(
                .evidenceDamaged, "evidence \(source) no longer matches its SHA-256; restore it from a backup")
        }
        return bytes
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
