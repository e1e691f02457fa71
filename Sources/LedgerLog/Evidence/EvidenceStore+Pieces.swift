import LedgerCrypto
import LedgerStore
import LedgerSystem

/// The log's evidence operations: pieces stored, restored and read back whole, checked against their SHA-256,
/// from the packs or the per-file layout of earlier versions; failures as ``LogError``.
extension EvidenceStore {
    /// Stores pieces hashed already under the digests they carry (see ``EventLog/putEvidence(hashed:durable:)``).
    func store(_ batch: [HashedBytes], durable: Bool) throws(LogError) {
        for piece in batch where piece.bytes.count > EvidencePack.maxBody {
            throw LogError(.invalidEntry, "a piece of evidence holds at most 4 GiB (got \(piece.bytes.count) bytes)")
        }
        do {
            try put(batch, durable: durable)
        } catch {
            throw LogError.system(error, "storing evidence in \(folder)")
        }
    }

    /// Writes a piece again, durably, when the copy stored under its digest is damaged or missing; returns whether
    /// it did (see ``EventLog/restoreEvidence(_:)``).
    func restore(_ piece: HashedBytes) throws(LogError) -> Bool {
        guard let digest = EvidenceDigest(piece.sha256) else {
            throw LogError(.invalidEntry, "an evidence digest is 32 bytes (got \(piece.sha256.count))")
        }
        do {
            if try evidence(piece.sha256) != nil { return false }
        } catch {
            guard error.code == .evidenceDamaged else { throw error }
        }
        do {
            try put([piece], durable: true, replacing: [digest])
        } catch {
            throw LogError.system(error, "storing evidence in \(folder)")
        }
        return true
    }

    /// The evidence with this SHA-256 from the packs, else from the per-file layout; nil when neither holds it.
    /// - Throws: ``LogError/Code/evidenceDamaged`` when the bytes no longer hash to their name (or their pack
    ///   entry fails its checksum).
    func evidence(_ sha256: [UInt8]) throws(LogError) -> [UInt8]? {
        guard let digest = EvidenceDigest(sha256) else { return nil }
        let bytes: [UInt8]
        let source: String
        if let packed = try read(digest) {
            bytes = packed
            source = location(digest).map { "at byte \($0.offset) of \($0.path)" } ?? "in the packs"
        } else {
            let path = legacyPath(digest)
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
}
