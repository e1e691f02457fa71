import LedgerCrypto
import LedgerStore

extension PostgresStore {
    /// The fewest rows a transaction sends by `COPY … FROM STDIN (FORMAT binary)`; smaller batches go as
    /// unnest() inserts in the COMMIT's pipeline. A COPY costs a round trip more per table (the server announces
    /// it before the rows go), which a batch of a few records (group-committed single appends) cannot pay back;
    /// a batch of hundreds spends far less on the server than arrays of arrays unnested and cast.
    static let copyThreshold = 64

    /// Inserts a batch and commits, the transaction opened by `opening` (sent first) or before: the evidence put
    /// since the last append and the records. Their subject keys are indexed after the commit (``indexSubjects()``).
    /// - Throws: the first failure; a failed transaction is rolled back. When the connection broke, the message
    ///   says that whether the commit took effect is unknown.
    static func commit(
        _ rows: [PostgresRow], evidence: [HashedBytes], _ session: PostgresSession, opening: [PostgresStatement]
    ) throws(LogError) {
        let evidenceInsert = evidence.isEmpty ? [] : [insertEvidence(evidence)]
        guard rows.count >= copyThreshold else {
            try session.commit(opening + evidenceInsert + inserts(rows))
            return
        }
        var script = opening.map(\.sql)
        if !evidenceInsert.isEmpty {
            // Parameters cannot ride in a script: the transaction's start and the evidence go in a pipeline first.
            do throws(LogError) {
                try session.pipeline(opening + evidenceInsert)
            } catch {
                session.rollback()
                throw error
            }
            script = []
        }
        script.append("COPY records (\(PostgresSchema.recordColumns)) FROM STDIN (FORMAT binary)")
        script.append("COMMIT")
        try session.commitCopying(script.joined(separator: ";\n")) { _, encoder throws(PostgresError) in
            try copyRecords(rows, into: &encoder)
        }
    }

    /// The rows of `records`, in ``PostgresSchema/recordColumns`` order.
    static func copyRecords(_ rows: [PostgresRow], into encoder: inout PostgresCopyEncoder) throws(PostgresError) {
        for row in rows {
            try encoder.row(fields: 6)
            encoder.int64(Int64(row.seq))
            encoder.int64(row.time)
            encoder.text(row.entry.idempotencyKey)
            encoder.textArray(row.entry.subjectKeys)
            encoder.bytea(row.entry.payload)
            encoder.bytea(row.hash)
        }
    }

    /// Inserts evidence, skipping digests already stored.
    static func insertEvidence(_ evidence: [HashedBytes]) -> PostgresStatement {
        PostgresStatement(
            prepared: "ledger_insert_evidence",
            "INSERT INTO evidence (sha256, payload) SELECT * FROM unnest($1::bytea[], $2::bytea[]) "
                + "ON CONFLICT (sha256) DO NOTHING",
            [.bytesArray(evidence.map(\.sha256)), .bytesArray(evidence.map(\.bytes))])
    }

    /// The statement inserting a small batch's records (arrays unnested by the server, so a batch's size never
    /// changes the statement's text); prepared once per connection.
    static func inserts(_ rows: [PostgresRow]) -> [PostgresStatement] {
        guard !rows.isEmpty else { return [] }
        return [
            PostgresStatement(
                prepared: "ledger_insert_batch",
                "INSERT INTO records (\(PostgresSchema.recordColumns)) SELECT s, t, k, c::text[], p, h FROM "
                    + "unnest($1::int8[], $2::int8[], $3::text[], $4::text[], $5::bytea[], $6::bytea[]) "
                    + "AS u(s, t, k, c, p, h)",
                [
                    .int64Array(rows.map { Int64($0.seq) }), .int64Array(rows.map(\.time)),
                    .textArray(rows.map(\.entry.idempotencyKey)),
                    .textArray(rows.map { PostgresValue.arrayLiteral($0.entry.subjectKeys) }),
                    .bytesArray(rows.map(\.entry.payload)), .bytesArray(rows.map(\.hash)),
                ])
        ]
    }
}
