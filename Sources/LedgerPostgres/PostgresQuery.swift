/// A statement the store runs often, prepared once per connection (``PostgresSession/execute(_:_:)-(PostgresQuery,_)``)
/// so the server parses and plans it once.
struct PostgresQuery {
    /// The prepared statement's name on the connection.
    let name: String
    /// Its text, with parameters `$1…$n`.
    let sql: String
    /// The parameters' type OIDs.
    let parameterTypes: [UInt32]

    /// The last record's seq, hash and time.
    static let head = PostgresQuery(
        name: "ledger_head", sql: "SELECT seq, hash, recorded_at FROM records ORDER BY seq DESC LIMIT 1",
        parameterTypes: [])
    /// One record by seq.
    static let record = PostgresQuery(
        name: "ledger_record", sql: "SELECT \(PostgresSchema.recordColumns) FROM records WHERE seq = $1",
        parameterTypes: [PostgresOID.int8])
    /// The seqs indexed under a subject key, ascending: from the index up to its mark, and from the records'
    /// own keys after it (``subjectsTail``).
    static let subjectSeqs = PostgresQuery(
        name: "ledger_subject_seqs",
        sql: "SELECT seq FROM record_subjects WHERE subject_key = $1 AND seq <= \(PostgresSchema.subjectsMark) "
            + "UNION ALL SELECT seq FROM records \(subjectsTail) ORDER BY 1",
        parameterTypes: [PostgresOID.text])
    /// The seq, time and payload of every record indexed under a subject key (`$1`), ascending, but those
    /// whose seqs are in `$2`: one query per key.
    ///
    /// Written as a lookup of the key's seqs and then of each record by its primary key, which is the plan
    /// whatever the statistics say: as a join, the plan cached for the prepared statement (the generic plan,
    /// after five runs, made while the tables had no statistics yet, as after a bulk load) could hash-join the
    /// whole `records` table, 8–12 ms for a key of a few records instead of 0.1 ms. The records after the
    /// index's mark are found by their own keys (``subjectsTail``). The seqs a subject walk has read already
    /// are left out before any record is fetched: a user's subscription key names mostly records read under
    /// the user's key, and sending them again cost a quarter of a query.
    static let subjectPayloads = PostgresQuery(
        name: "ledger_subject_payloads",
        sql: "SELECT seq, recorded_at, payload FROM records WHERE seq = ANY (ARRAY("
            + "SELECT seq FROM record_subjects WHERE subject_key = $1 AND seq <= \(PostgresSchema.subjectsMark) "
            + "AND seq <> ALL ($2))) "
            + "UNION ALL SELECT seq, recorded_at, payload FROM records \(subjectsTail) AND seq <> ALL ($2) "
            + "ORDER BY 1",
        parameterTypes: [PostgresOID.text, PostgresOID.int8Array])
    /// The records after the subject index's mark that carry key `$1` (``PostgresSchema/afterSubjectsMark``).
    static let subjectsTail = "WHERE \(PostgresSchema.afterSubjectsMark) AND $1 = ANY (subject_keys)"
    /// Indexes the next records after the subject index's mark (at most `$1`) and moves the mark past them, in
    /// one statement: the mark's row is locked first, so indexers of several processes take turns. Returns the
    /// new mark, or no row when there was nothing to index. The mark is a scalar subquery, so it bounds the scan
    /// of the primary key; joined with `mark`, the plan read every record to find none (0.8 s on 1M records).
    static let indexSubjects = PostgresQuery(
        name: "ledger_index_subjects",
        sql: """
            WITH mark AS (SELECT subjects_through AS through FROM meta WHERE id = 1 FOR UPDATE),
            batch AS (SELECT r.seq, r.subject_keys FROM records AS r WHERE r.seq > (SELECT through FROM mark)
                AND r.seq <= \(Int64.max) ORDER BY r.seq LIMIT $1),
            indexed AS (INSERT INTO record_subjects (subject_key, seq)
                SELECT DISTINCT u.key, b.seq FROM batch AS b, unnest(b.subject_keys) AS u(key)
                ON CONFLICT DO NOTHING)
            UPDATE meta SET subjects_through = (SELECT max(seq) FROM batch)
            WHERE id = 1 AND EXISTS (SELECT 1 FROM batch) RETURNING subjects_through
            """,
        parameterTypes: [PostgresOID.int8])
    /// The seq of the record with an idempotency key.
    static let idempotencyKey = PostgresQuery(
        name: "ledger_idempotency_key", sql: "SELECT seq FROM records WHERE idempotency_key = $1",
        parameterTypes: [PostgresOID.text])
    /// Evidence by SHA-256.
    static let evidence = PostgresQuery(
        name: "ledger_evidence", sql: "SELECT payload FROM evidence WHERE sha256 = $1",
        parameterTypes: [PostgresOID.bytea])
}
