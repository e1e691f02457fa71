import LedgerCrypto
import LedgerStore

extension PostgresStore {
    /// Checks the whole ledger as `ledger verify` does for the file log: gap-free seqs from 1, non-decreasing
    /// times, and every chain hash recomputed from the environment's genesis hash, reporting the first problem.
    /// - Parameters:
    ///   - expectHead: a pinned head hash; the check fails unless the head has it.
    ///   - readRecord: reads every record's payload; the first it cannot read is an `unreadableRecord` problem
    ///     (when the chain is sound), with the count of such records.
    ///   - progress: called now and then with the seq reached.
    /// - Throws: only when the database cannot be read.
    public func verify(
        expectHead: [UInt8]? = nil, expectSeq: UInt64? = nil, readRecord: RecordReader? = nil,
        progress: ((UInt64) -> Void)? = nil
    ) throws(LogError) -> VerifyReport {
        var pinned: [UInt8]?
        let environment = self.environment
        var hash = environment.map { LogFormat.genesis(environment: $0) } ?? []
        var seq: UInt64 = 0
        var time: Int64 = 0
        var problem: LogProblem?
        var unreadable: (count: UInt64, first: (seq: UInt64, reason: String)?) = (0, nil)
        do {
            try forEach(from: 1) { record in
                if let environment = self.environment, seq == 0, hash.isEmpty {
                    hash = LogFormat.genesis(environment: environment)
                }
                let entry = LogEntry(record)
                let expected = LogFormat.chainHash(
                    previous: hash, seq: record.seq, recordedAt: record.recordedAt, entry: entry)
                if record.recordedAt < time {
                    problem = LogProblem(
                        kind: .timeOrder, segment: "table records", offset: nil, seq: record.seq,
                        message: "record \(record.seq) is recorded before record \(seq); the records table was "
                            + "altered: restore it from a backup")
                } else if expected != record.hash {
                    problem = LogProblem(
                        kind: .chainBroken, segment: "table records", offset: nil, seq: record.seq,
                        message: "record \(record.seq) does not match its chain hash: it was altered after it was "
                            + "appended; restore the records table from a backup")
                }
                if problem != nil { throw VerifyStop() }
                if let readRecord, let reason = record.payload.withUnsafeBytes({ readRecord($0) }) {
                    unreadable.count += 1
                    if unreadable.first == nil { unreadable.first = (record.seq, reason) }
                }
                hash = record.hash
                seq = record.seq
                time = record.recordedAt
                if seq == expectSeq { pinned = hash }
                if let progress, seq & 0xFFFF == 0 { progress(seq) }
            }
        } catch is VerifyStop {
        } catch let error as LogError where error.code == .damaged {
            problem = LogProblem(
                kind: .sequenceGap, segment: "table records", offset: nil, seq: seq + 1, message: error.message)
        } catch let error as LogError {
            throw error
        } catch {
            throw LogError(.io, "verifying \(path): \(error)")
        }
        if problem == nil, let (seq, reason) = unreadable.first {
            let more = unreadable.count > 1 ? " (\(unreadable.count) records in all)" : ""
            problem = LogProblem(
                kind: .unreadableRecord, segment: "table records", offset: nil, seq: seq,
                message: "record \(seq) matches its chain hash but cannot be read\(more): \(reason)")
        }
        if let expectHead, problem == nil || expectSeq != nil {
            let actual = expectSeq == nil ? hash : pinned
            if actual != expectHead {
                let at = expectSeq.map { "record \($0)" } ?? "the head (record \(seq))"
                problem =
                    problem
                    ?? LogProblem(
                        kind: .headMismatch, segment: nil, offset: nil, seq: expectSeq ?? seq,
                        message: "the chain hash of \(at) is \(actual.map { Hex.encode($0) } ?? "no such record"), not "
                            + "the expected \(Hex.encode(expectHead)); \(LogProblem.headMismatchCauses(pinnedAtHead: expectSeq == nil))"
                    )
            }
        }
        return VerifyReport(
            records: seq, headSeq: seq, headHash: hash, headTime: time, environment: environment, segments: 0,
            problem: problem)
    }

    /// Indexes the records after the subject index's mark and re-derives the whole index (`record_subjects`) from
    /// the records when it differs, in one transaction under the writers' lock; a reader only reports the head.
    public func rebuildIndexes(progress: ((UInt64) -> Void)? = nil) throws(LogError) {
        guard isWriter else {
            progress?(head.seq)
            return
        }
        let covered = try withWriter { session throws(LogError) -> UInt64 in
            try session.createTables()
            return try session.transaction { () throws(LogError) -> UInt64 in
                try session.execute(PostgresSchema.lockStatement)
                // The records after the mark indexed first (the mark's row then stays locked: no indexer moves it
                // meanwhile), so the whole index is compared.
                _ = try Self.indexPasses(session)
                // Each key of a record, taken at its first place in the record's keys.
                let derived =
                    "SELECT u.key AS subject_key, r.seq FROM records AS r, unnest(r.subject_keys) WITH ORDINALITY "
                    + "AS u(key, n) WHERE u.n = 1 OR u.key <> ALL (r.subject_keys[1:u.n - 1])"
                // First a look whether the index differs at all, nothing written: the count and the sum of a
                // 64-bit hash of every (key, seq) pair, derived and stored. Two scans and no join (a FULL JOIN
                // took 3× as long); a whole index, the common case, is left as it is.
                let digest = "count(*), coalesce(sum(hashtextextended(subject_key, seq)), 0)"
                let check = try session.pipeline([
                    PostgresStatement(
                        "SELECT (SELECT ROW(\(digest)) FROM (\(derived)) AS d) "
                            + "IS DISTINCT FROM (SELECT ROW(\(digest)) FROM record_subjects)"),
                    PostgresStatement("SELECT coalesce(max(seq), 0) FROM records"),
                ])
                let covered = UInt64(try Self.integer(check[1], 0, 0))
                guard check[0].bytes(0, 0) == [1] else { return covered }
                // Emptied and refilled in bulk, the key built once at the end with room to sort in memory: one
                // round trip. The mark moves to the head.
                _ = try session.pipeline([
                    PostgresStatement("SET LOCAL maintenance_work_mem = '512MB'"),
                    PostgresStatement("TRUNCATE record_subjects"),
                    PostgresStatement("ALTER TABLE record_subjects DROP CONSTRAINT IF EXISTS record_subjects_pkey"),
                    PostgresStatement("INSERT INTO record_subjects (subject_key, seq) \(derived)"),
                    PostgresStatement("ALTER TABLE record_subjects ADD PRIMARY KEY (subject_key, seq)"),
                    PostgresStatement("UPDATE meta SET subjects_through = \(covered) WHERE id = 1"),
                ])
                return covered
            }
        }
        progress?(covered)
    }
}

/// Ends a verification scan at its first problem.
private struct VerifyStop: Error {}
