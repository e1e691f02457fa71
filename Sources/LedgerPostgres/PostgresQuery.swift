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
    /// The seqs indexed under a subject key, ascending.
    static let subjectSeqs = PostgresQuery(
        name: "ledger_subject_seqs", sql: "SELECT seq FROM record_subjects WHERE subject_key = $1 ORDER BY seq",
        parameterTypes: [PostgresOID.text])
    /// The seq, time and payload of every record indexed under a subject key, ascending: one query per key.
    ///
    /// Written as a lookup of the key's seqs and then of each record by its primary key, which is the plan
    /// whatever the statistics say: as a join, the plan cached for the prepared statement (the generic plan,
    /// after five runs, made while the tables had no statistics yet, as after a bulk load) could hash-join the
    /// whole `records` table, 8–12 ms for a key of a few records instead of 0.1 ms.
    static let subjectPayloads = PostgresQuery(
        name: "ledger_subject_payloads",
        sql: "SELECT seq, recorded_at, payload FROM records WHERE seq = ANY (ARRAY("
            + "SELECT seq FROM record_subjects WHERE subject_key = $1)) ORDER BY seq",
        parameterTypes: [PostgresOID.text])
    /// The seq of the record with an idempotency key.
    static let idempotencyKey = PostgresQuery(
        name: "ledger_idempotency_key", sql: "SELECT seq FROM records WHERE idempotency_key = $1",
        parameterTypes: [PostgresOID.text])
    /// Evidence by SHA-256.
    static let evidence = PostgresQuery(
        name: "ledger_evidence", sql: "SELECT payload FROM evidence WHERE sha256 = $1",
        parameterTypes: [PostgresOID.bytea])
}
