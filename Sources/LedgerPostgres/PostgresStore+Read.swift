import LedgerStore

extension PostgresStore {
    /// The last record's seq (0 when empty) and its chain hash (the genesis hash when empty; empty bytes while
    /// the environment is unknown), read from the database. When it cannot be reached, the last head this
    /// handle saw.
    public var head: (seq: UInt64, hash: [UInt8]) {
        let head = currentHead()
        return (head.seq, head.hash)
    }

    /// The last record's recorded time (ms since the epoch; 0 when empty).
    public var headTime: Int64 { currentHead().time }

    /// The head with its time, from the database (or the last one seen when it cannot be reached).
    func currentHead() -> (seq: UInt64, hash: [UInt8], time: Int64) {
        let read: (UInt64, [UInt8], Int64)?
        do {
            read = try withReader { session throws(LogError) -> (UInt64, [UInt8], Int64)? in
                guard try session.tablesExist() else { return nil }
                let result = try session.execute("SELECT seq, hash, recorded_at FROM records ORDER BY seq DESC LIMIT 1")
                guard result.rowCount == 1 else { return nil }
                return (UInt64(try Self.integer(result, 0, 0)), result.bytes(0, 1), try Self.integer(result, 0, 2))
            }
        } catch {
            return lastHead.withLock { $0 }
        }
        guard let (seq, hash, time) = read else {
            return (0, environment.map { LogFormat.genesis(environment: $0) } ?? [], 0)
        }
        return lastHead.withLock { last in
            if seq >= last.seq { last = (seq, hash, time) }
            return last
        }
    }

    /// The record with this seq; `LogError.Code.notFound` when there is none.
    public func record(seq: UInt64) throws(LogError) -> LogRecord {
        let found = try withReader { session throws(LogError) -> LogRecord? in
            guard seq > 0, seq <= UInt64(Int64.max), try session.tablesExist() else { return nil }
            let result = try session.execute(
                "SELECT \(PostgresSchema.recordColumns) FROM records WHERE seq = $1", [.int64(Int64(seq))])
            return result.rowCount == 1 ? try Self.decodeRecord(result, 0) : nil
        }
        guard let found else { throw LogError(.notFound, "the ledger has no record \(seq)") }
        return found
    }

    /// Calls `body` with every record from `seq` to the head as it was when the call began, in order, fetching
    /// pages of 2,000 records. A missing seq stops the scan with `LogError.Code.damaged`.
    public func forEach(from seq: UInt64 = 1, _ body: (LogRecord) throws -> Void) throws {
        let end = head.seq
        var next = max(seq, 1)
        while next <= end {
            let from = next
            let page = try withReader { session throws(LogError) -> [LogRecord] in
                let result = try session.execute(
                    "SELECT \(PostgresSchema.recordColumns) FROM records WHERE seq >= $1 AND seq <= $2 "
                        + "ORDER BY seq LIMIT 2000", [.int64(Int64(from)), .int64(Int64(end))])
                var records: [LogRecord] = []
                records.reserveCapacity(result.rowCount)
                for row in 0..<result.rowCount { records.append(try Self.decodeRecord(result, row)) }
                return records
            }
            guard !page.isEmpty else { throw Self.gap(next) }
            for record in page {
                guard record.seq == next else { throw Self.gap(next) }
                try body(record)
                next += 1
            }
        }
    }

    /// The seqs of the records indexed under a subject key, ascending.
    public func seqs(forSubjectKey key: String) throws(LogError) -> [UInt64] {
        try withReader { session throws(LogError) -> [UInt64] in
            guard try session.tablesExist() else { return [] }
            let result = try session.execute(
                "SELECT seq FROM record_subjects WHERE subject_key = $1 ORDER BY seq", [.text(key)])
            var seqs: [UInt64] = []
            seqs.reserveCapacity(result.rowCount)
            for row in 0..<result.rowCount { seqs.append(UInt64(try Self.integer(result, row, 0))) }
            return seqs
        }
    }

    /// The seq of the record with this idempotency key, if stored.
    public func seq(forIdempotencyKey key: String) throws(LogError) -> UInt64? {
        try withReader { session throws(LogError) -> UInt64? in
            guard try session.tablesExist() else { return nil }
            let result = try session.execute("SELECT seq FROM records WHERE idempotency_key = $1", [.text(key)])
            return result.rowCount == 1 ? UInt64(try Self.integer(result, 0, 0)) : nil
        }
    }

    /// The number of distinct subject keys indexed (0 when the database cannot be reached).
    public var subjectCount: Int {
        let count = try? withReader { session throws(LogError) -> Int in
            guard try session.tablesExist() else { return 0 }
            let result = try session.execute("SELECT count(DISTINCT subject_key) FROM record_subjects")
            return Int(try Self.integer(result, 0, 0))
        }
        return count ?? 0
    }

    /// A row of ``PostgresSchema/recordColumns`` as a record.
    static func decodeRecord(_ result: PostgresResult, _ row: Int) throws(LogError) -> LogRecord {
        let subjectKeys: [String]
        do {
            subjectKeys = try result.textArray(row, 3)
        } catch {
            throw PostgresSession.logError(error)
        }
        return LogRecord(
            seq: UInt64(try integer(result, row, 0)), recordedAt: try integer(result, row, 1),
            idempotencyKey: result.text(row, 2), subjectKeys: subjectKeys, payload: result.bytes(row, 4),
            hash: result.bytes(row, 5), segment: "table records", offset: 0)
    }

    static func gap(_ seq: UInt64) -> LogError {
        LogError(
            .damaged,
            "the records table has no record \(seq) although later ones exist; run `ledger verify` and restore "
                + "the table from a backup")
    }
}
