import LedgerCrypto
import LedgerSystem

/// Where earlier versions kept one piece of evidence: `<root>/<first 2 hex>/<other hex>`, built in one pass over the digest.
struct EvidencePath {
    /// The folder, `<root>/<first 2 hex>`.
    var folder: String
    /// The file.
    var file: String

    private static let digits = Array("0123456789abcdef".utf8)

    init(root: String, digest: [UInt8]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(root.utf8.count + 2 + digest.count * 2 + 1)
        bytes.append(contentsOf: root.utf8)
        if bytes.last != UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
        var folderEnd = bytes.count
        for (index, byte) in digest.enumerated() {
            bytes.append(Self.digits[Int(byte >> 4)])
            bytes.append(Self.digits[Int(byte & 0xF)])
            if index == 0 {
                folderEnd = bytes.count
                bytes.append(UInt8(ascii: "/"))
            }
        }
        folder = String(decoding: bytes[..<folderEnd], as: UTF8.self)
        file = String(decoding: bytes, as: UTF8.self)
    }
}

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
        guard isWriter else { throw LogError(.notWritable, "this log was opened for reading; open it as the writer") }
        for bytes in batch where bytes.count > EvidencePack.maxBody {
            throw LogError(.invalidEntry, "a piece of evidence holds at most 4 GiB (got \(bytes.count) bytes)")
        }
        let digests = batch.map { SHA256.hash($0) }
        let root = directory.evidence
        do {
            try evidencePacks.put(batch, digests: digests, durable: durable) { digest in
                withUnsafeBytes(of: digest) { EvidencePath(root: root, digest: Array($0)).file }
            }
        } catch {
            throw LogError.system(error, "storing evidence in \(directory.evidence)")
        }
        return digests
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
        EvidencePath(root: directory.evidence, digest: sha256).file
    }
}
