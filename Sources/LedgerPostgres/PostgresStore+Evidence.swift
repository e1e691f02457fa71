import LedgerCrypto
import LedgerStore

extension PostgresStore {
    /// Stores evidence payloads content-addressed by SHA-256, committed before returning (so before the records
    /// that reference them); storing the same bytes again is a no-op. Returns the digests in order.
    @discardableResult
    public func putEvidence(batch: [[UInt8]]) throws(LogError) -> [[UInt8]] {
        let hashed = batch.map { HashedBytes($0) }
        try putEvidence(hashed: hashed, durable: true)
        return hashed.map(\.sha256)
    }

    /// ``putEvidence(batch:)`` of evidence whose SHA-256 is known: committed now, or (`durable: false`) kept for
    /// the next append, whose transaction inserts it before its records (one round trip for both).
    public func putEvidence(hashed batch: [HashedBytes], durable: Bool) throws(LogError) {
        guard !batch.isEmpty else { return }
        guard durable else {
            guard isWriter else {
                throw LogError(.notWritable, "this store was opened for reading; open it as a writer")
            }
            pendingEvidence.withLock { $0.append(contentsOf: batch) }
            return
        }
        try withWriter { session throws(LogError) in
            try session.createTables()
            try session.pipeline([Self.insertEvidence(batch)])
        }
    }

    /// The evidence with this SHA-256, or nil when none is stored.
    /// - Throws: `LogError.Code.evidenceDamaged` when the stored bytes no longer hash to their key.
    public func evidence(_ sha256: [UInt8]) throws(LogError) -> [UInt8]? {
        if let pending = pendingEvidence.withLock({ $0.first { $0.sha256 == sha256 }?.bytes }) { return pending }
        let bytes = try withReader { session throws(LogError) -> [UInt8]? in
            guard try session.tablesExist() else { return nil }
            let result = try session.execute(PostgresQuery.evidence, [.bytes(sha256)])
            return result.rowCount == 1 ? result.bytes(0, 0) : nil
        }
        guard let bytes else { return nil }
        guard SHA256.hash(bytes) == sha256 else {
            throw LogError(
                .evidenceDamaged,
                "evidence \(Hex.encode(sha256)) in \(path) no longer matches its SHA-256; restore it from a backup")
        }
        return bytes
    }

    /// Keeps a derived file (a projection snapshot) in the `derived` table, tagged with the position it covers.
    public func writeDerived(_ name: String, _ bytes: [UInt8], coveredSeq: UInt64, headHash: [UInt8])
        throws(LogError)
    {
        try withWriter { session throws(LogError) in
            try session.createTables()
            try session.execute(
                """
                INSERT INTO derived (name, covered_seq, head_hash, content) VALUES ($1, $2, $3, $4)
                ON CONFLICT (name) DO UPDATE SET covered_seq = EXCLUDED.covered_seq,
                    head_hash = EXCLUDED.head_hash, content = EXCLUDED.content
                """, [.text(name), .int64(Int64(coveredSeq)), .bytes(headHash), .bytes(bytes)])
        }
    }

    /// A derived file, when present and consistent with the ledger: its covered record still has the hash it
    /// was derived from. Nil otherwise; the caller rebuilds it.
    public func readDerived(_ name: String) -> DerivedSnapshot? {
        let stored = try? withReader { session throws(LogError) -> DerivedSnapshot? in
            guard try session.tablesExist() else { return nil }
            let result = try session.execute(
                "SELECT covered_seq, head_hash, content FROM derived WHERE name = $1", [.text(name)])
            guard result.rowCount == 1 else { return nil }
            return DerivedSnapshot(
                coveredSeq: UInt64(try Self.integer(result, 0, 0)), headHash: result.bytes(0, 1),
                bytes: result.bytes(0, 2))
        }
        guard let snapshot = stored, holdsHistory(of: snapshot) else { return nil }
        return snapshot
    }
}
