/// The tables of a ledger in PostgreSQL, created in the first schema of the connection's `search_path`
/// (`public` unless the connection string says `options=-csearch_path%3DNAME`), so one database can hold several
/// ledgers side by side. README, "PostgreSQL", documents them for database teams.
///
/// - `meta`: one row, written with the first record: the format version and the environment the ledger is bound
///   to (and its genesis hash), and the app it is bound to: `bundle_id` and, in production, `app_apple_id`
///   (columns added to an older `meta` by the first write that names an app, then filled once).
/// - `records`: the log. `seq` is gap-free from 1 (writers are serialised by an advisory lock and assign
///   head + 1…), `idempotency_key` is unique, `hash` is the chain hash SHA-256(previous hash ‖ record body), the
///   same bytes as the file log's. Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE.
/// - `record_subjects`: subject key → seq, the index behind the per-user and per-subscription reads. It holds every
///   record up to `meta.subjects_through` and is filled after the append, by the writer's indexer
///   (``PostgresStore`` "The subject index"); reads take the records after that mark from their `subject_keys`.
///   A `meta` without the column (a ledger of format 1, indexed in the append) is indexed throughout.
/// - `evidence`: the signed payloads, content-addressed by SHA-256; append-only like `records`.
/// - `derived`: projection snapshots tagged with the log position they cover.
enum PostgresSchema {
    /// The format version of these tables.
    /// Format 2 fills the subject index after the append; format 1 wrote it in the append's transaction.
    static let version: Int64 = 2

    /// The advisory lock that serialises writers of one ledger: a fixed class id and the schema's name.
    static let lockStatement = "SELECT pg_advisory_xact_lock(1818584167, hashtext(current_schema()))"

    /// Whether the ledger's tables exist in the current schema.
    static let existsQuery = "SELECT to_regclass('records') IS NOT NULL AND to_regclass('meta') IS NOT NULL"

    /// Creates whatever is missing, idempotently, under the writers' lock (so two processes starting together do
    /// not race on the catalog).
    static let createScript = """
        BEGIN;
        \(lockStatement);
        CREATE TABLE IF NOT EXISTS meta (
            id int PRIMARY KEY CHECK (id = 1),
            format int NOT NULL,
            environment text NOT NULL,
            genesis bytea NOT NULL,
            bundle_id text,
            app_apple_id bigint,
            subjects_through bigint
        );
        CREATE TABLE IF NOT EXISTS records (
            seq bigint PRIMARY KEY CHECK (seq > 0),
            recorded_at bigint NOT NULL,
            idempotency_key text NOT NULL UNIQUE,
            subject_keys text[] NOT NULL,
            payload bytea NOT NULL,
            hash bytea NOT NULL CHECK (length(hash) = 32)
        );
        CREATE TABLE IF NOT EXISTS record_subjects (
            subject_key text NOT NULL,
            seq bigint NOT NULL,
            PRIMARY KEY (subject_key, seq)
        );
        CREATE TABLE IF NOT EXISTS evidence (
            sha256 bytea PRIMARY KEY CHECK (length(sha256) = 32),
            payload bytea NOT NULL
        );
        CREATE TABLE IF NOT EXISTS derived (
            name text PRIMARY KEY,
            covered_seq bigint NOT NULL,
            head_hash bytea NOT NULL,
            content bytea NOT NULL
        );
        CREATE OR REPLACE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'the ledger''s % table is append-only: % refused', TG_TABLE_NAME, TG_OP
                USING ERRCODE = 'insufficient_privilege';
        END $$;
        DROP TRIGGER IF EXISTS records_append_only ON records;
        CREATE TRIGGER records_append_only BEFORE UPDATE OR DELETE ON records
            FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
        DROP TRIGGER IF EXISTS records_no_truncate ON records;
        CREATE TRIGGER records_no_truncate BEFORE TRUNCATE ON records
            FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
        DROP TRIGGER IF EXISTS evidence_append_only ON evidence;
        CREATE TRIGGER evidence_append_only BEFORE UPDATE OR DELETE ON evidence
            FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
        COMMIT;
        """

    /// Adds the identity columns to a `meta` table created before identities were recorded.
    static let identityColumns =
        "ALTER TABLE meta ADD COLUMN IF NOT EXISTS bundle_id text, ADD COLUMN IF NOT EXISTS app_apple_id bigint"

    /// Whether `meta` lacks the subject index's mark (a ledger of format 1, indexed in its appends): the
    /// ``subjectsMarkMigration`` is due.
    static let subjectsMarkMissing = """
        SELECT to_regclass('meta') IS NOT NULL AND (NOT EXISTS (SELECT 1 FROM pg_attribute
            WHERE attrelid = to_regclass('meta') AND attname = 'subjects_through' AND NOT attisdropped)
            OR EXISTS (SELECT 1 FROM meta AS m WHERE id = 1 AND (to_jsonb(m) ->> 'subjects_through') IS NULL))
        """

    /// Gives a ledger of format 1 the subject index's mark at its head (its appends indexed every record) and
    /// format 2, under the writers' lock: writers of format 1 refuse it from then on.
    static let subjectsMarkMigration = """
        BEGIN;
        \(lockStatement);
        ALTER TABLE meta ADD COLUMN IF NOT EXISTS subjects_through bigint;
        UPDATE meta SET subjects_through = (SELECT coalesce(max(seq), 0) FROM records), format = greatest(format, 2)
            WHERE id = 1 AND subjects_through IS NULL;
        COMMIT;
        """

    /// The last seq the subject index covers, in a statement's snapshot: `record_subjects` holds every record up
    /// to it; NULL for an empty ledger; a `meta` without the column is indexed throughout.
    static let subjectsMark =
        "(SELECT coalesce((to_jsonb(m) ->> 'subjects_through')::bigint, \(Int64.max)) FROM meta AS m WHERE m.id = 1)"

    /// The records after the subject index's mark, as a range of the primary key: the constant upper bound makes
    /// it one for the planner (one bound unknown: 0.5% of the rows), so even a generic plan scans the index.
    static let afterSubjectsMark = "seq > \(subjectsMark) AND seq <= \(Int64.max)"

    /// The bound identity's columns, read whether or not the table has them yet (from the alias `m` of `meta`).
    static let identitySelect = "to_jsonb(m) ->> 'bundle_id', to_jsonb(m) ->> 'app_apple_id'"

    /// The columns of a record, in the order ``PostgresStore`` reads them.
    static let recordColumns = "seq, recorded_at, idempotency_key, subject_keys, payload, hash"
}
