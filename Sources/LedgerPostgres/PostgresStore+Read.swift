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
                let result = try session.execute(PostgresQuery.head)
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
            let result = try session.execute(PostgresQuery.record, [.int64(Int64(seq))])
            return result.rowCount == 1 ? try Self.decodeRecord(result, 0) : nil
        }
        guard let found else { throw LogError(.notFound, "the ledger has no record \(seq)") }
        return found
    }

    /// Calls `body` with every record from `seq` to the head as it was when the call began, in order: one
    /// statement streaming the records in binary (`COPY … TO STDOUT`) on a connection of its own, so `body` may
    /// use the store. A missing seq stops the scan with `LogError.Code.damaged`.
    public func forEach(from seq: UInt64 = 1, _ body: (LogRecord) throws -> Void) throws {
        let end = head.seq
        var next = max(seq, 1)
        guard next <= end else { return }
        // Two integers: nothing from outside reaches the statement's text.
        let query =
            "SELECT \(PostgresSchema.recordColumns) FROM records WHERE seq >= \(next) AND seq <= \(end) ORDER BY seq"
        try walk(query) { row in
            let record = try Self.decodeRecord(row)
            guard record.seq == next else { throw Self.gap(next) }
            try body(record)
            next += 1
        }
        guard next > end else { throw Self.gap(next) }
    }

    /// Streams `query`'s rows on an idle walk connection (a new one when none is idle); the connection goes back
    /// to the idle ones when the stream ended, and is closed when `row` stopped it.
    func walk(_ query: String, _ row: (PostgresCopyRow) throws -> Void) throws {
        guard !closed.load(ordering: .acquiring) else { throw Self.closedError }
        let session = try idleWalker()
        do {
            try session.connection.copyOut(query, row)
        } catch let error as PostgresError {
            throw PostgresSession.logError(error)
        }
        if !closed.load(ordering: .acquiring) { walkers.give(session) }
    }

    /// An idle walk connection (a new one when none is idle), healed.
    func idleWalker() throws(LogError) -> PostgresSession {
        let session: PostgresSession
        // `??` would throw untyped: its right side is an autoclosure.
        if let idle = walkers.take() { session = idle } else { session = try Self.connect(connectionString) }
        try Self.heal(session)
        return session
    }

    /// The seqs of the records indexed under a subject key, ascending.
    public func seqs(forSubjectKey key: String) throws(LogError) -> [UInt64] {
        try withReader { session throws(LogError) -> [UInt64] in
            guard try session.tablesExist() else { return [] }
            let result = try session.execute(PostgresQuery.subjectSeqs, [.text(key)])
            var seqs: [UInt64] = []
            seqs.reserveCapacity(result.rowCount)
            for row in 0..<result.rowCount { seqs.append(UInt64(try Self.integer(result, row, 0))) }
            return seqs
        }
    }

    /// Calls `body` with the seq, recorded time and payload of each record indexed under a subject key,
    /// ascending, leaving out the seqs in `skipping`: from the in-memory copy when the handle keeps one and it is
    /// loaded (``subjectSnapshot()``), else from the database.
    public func forEachPayload(
        forSubjectKey key: String, skipping: Set<UInt64>, _ body: (UInt64, Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        if let snapshot = try subjectSnapshot() {
            try snapshot.forEachPayload(forSubjectKey: key, skipping: skipping, body)
        } else {
            try databasePayloads(forSubjectKey: key, skipping: skipping, body)
        }
    }

    /// ``forEachPayload(forSubjectKey:skipping:_:)`` from the database: one prepared query for the key (not one
    /// per record). The server leaves the skipped seqs out before it fetches a record, up to
    /// ``maxSkippedOnServer`` of them (`<> ALL` compares each row with each; a longer list is left out here).
    func databasePayloads(
        forSubjectKey key: String, skipping: Set<UInt64>, _ body: (UInt64, Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let skipsHere = skipping.count > Self.maxSkippedOnServer
        let result = try withReader { session throws(LogError) -> PostgresResult? in
            guard try session.tablesExist() else { return nil }
            let skipped = skipsHere ? [] : skipping.map { Int64(truncatingIfNeeded: $0) }
            return try session.execute(PostgresQuery.subjectPayloads, [.text(key), .int64Array(skipped)])
        }
        guard let result else { return }
        for row in 0..<result.rowCount {
            let seq = UInt64(try Self.integer(result, row, 0))
            if skipsHere, skipping.contains(seq) { continue }
            let recordedAt = try Self.integer(result, row, 1)
            try result.withBytes(row, 2) { try body(seq, recordedAt, $0) }
        }
    }

    /// The most seqs a subject read asks the server to leave out.
    static let maxSkippedOnServer = 1_024

    /// The seq of the record with this idempotency key, if stored.
    public func seq(forIdempotencyKey key: String) throws(LogError) -> UInt64? {
        try withReader { session throws(LogError) -> UInt64? in
            guard try session.tablesExist() else { return nil }
            let result = try session.execute(PostgresQuery.idempotencyKey, [.text(key)])
            return result.rowCount == 1 ? UInt64(try Self.integer(result, 0, 0)) : nil
        }
    }

    /// The number of distinct subject keys indexed (0 when the database cannot be reached).
    public var subjectCount: Int {
        let count = try? withReader { session throws(LogError) -> Int in
            guard try session.tablesExist() else { return 0 }
            let result = try session.execute(
                "SELECT count(*) FROM (SELECT subject_key FROM record_subjects UNION "
                    + "SELECT unnest(subject_keys) FROM records WHERE \(PostgresSchema.afterSubjectsMark)) AS k")
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

    /// A streamed row of ``PostgresSchema/recordColumns`` as a record, decoded from its binary fields.
    static func decodeRecord(_ row: PostgresCopyRow) throws(LogError) -> LogRecord {
        guard row.count == 6, let seq = row.int64(0), seq > 0, let recordedAt = row.int64(1), !row.isNull(2),
            !row.isNull(4), !row.isNull(5),
            let subjectKeys = PostgresResult.decodeArray(row[3], { String(decoding: $0, as: UTF8.self) })
        else {
            throw LogError(.damaged, "a row of the records table is not in the shape this program reads")
        }
        return LogRecord(
            seq: UInt64(seq), recordedAt: recordedAt, idempotencyKey: String(decoding: row[2], as: UTF8.self),
            subjectKeys: subjectKeys, payload: Array(row[4]), hash: Array(row[5]), segment: "table records",
            offset: 0)
    }

    static func gap(_ seq: UInt64) -> LogError {
        LogError(
            .damaged,
            "the records table has no record \(seq) although later ones exist; run `ledger verify` and restore "
                + "the table from a backup")
    }
}
