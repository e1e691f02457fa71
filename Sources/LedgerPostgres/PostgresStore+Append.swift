import LedgerStore

/// The head of the ledger as the writers' transaction sees it.
struct PostgresHead {
    var seq: UInt64
    var hash: [UInt8]
    var time: Int64
    var environment: String
    var identity: AppIdentity?
}

extension PostgresStore {
    /// Appends entries durably, all or nothing for this call; thread-safe, and safe with writers in other
    /// processes.
    ///
    /// Returns one outcome per entry, in order, once the transaction holding the new records committed. An entry
    /// whose idempotency key is already stored (or earlier in the same call) is a duplicate and is not stored
    /// again; the check runs under the writers' lock, so concurrent writers never store a key twice.
    /// - Throws: `LogError.Code.io` when the database failed (nothing of this call was stored, unless the failure
    ///   hit the COMMIT itself: then retrying reports the stored records as duplicates); `invalidEntry`;
    ///   `environmentUnknown` when nothing bound the ledger and no environment was given; `environmentMismatch`;
    ///   `notWritable` on a reader or a closed store.
    public func append(_ entries: [LogEntry]) throws(LogError) -> [AppendOutcome] {
        for entry in entries { try entry.validate() }
        guard !entries.isEmpty else { return [] }
        guard isWriter else { throw LogError(.notWritable, "this store was opened for reading; open it as a writer") }
        return try commits.submit(entries) { batch throws(LogError) in try commitBatch(batch) }
    }

    /// ``append(_:)``: evidence is committed by its own put, so there is nothing to sync first.
    public func append(_ entries: [LogEntry], syncingEvidenceFirst: Bool) throws(LogError) -> [AppendOutcome] {
        try append(entries)
    }

    /// Appends one entry; see ``append(_:)``.
    @discardableResult
    public func append(_ entry: LogEntry) throws(LogError) -> AppendOutcome {
        try append([entry])[0]
    }

    /// One transaction: lock, read the head, find duplicates, insert the new records and their subject keys.
    func commitBatch(_ entries: [LogEntry]) throws(LogError) -> [AppendOutcome] {
        let (outcomes, head) = try withWriter { session throws(LogError) -> ([AppendOutcome], PostgresHead) in
            try session.createTables()
            return try session.transaction { () throws(LogError) in
                try session.execute(PostgresSchema.lockStatement)
                var head = try lockedHead(session)
                let existing = try storedSeqs(session, keys: entries.map(\.idempotencyKey))
                var outcomes: [AppendOutcome] = []
                outcomes.reserveCapacity(entries.count)
                var inBatch: [String: UInt64] = [:]
                var rows: [(entry: LogEntry, seq: UInt64, time: Int64, hash: [UInt8])] = []
                let now = clock()
                for entry in entries {
                    if let seq = existing[entry.idempotencyKey] ?? inBatch[entry.idempotencyKey] {
                        outcomes.append(.duplicate(seq: seq))
                        continue
                    }
                    let seq = head.seq + 1
                    let time = max(head.time, entry.recordedAt ?? now)
                    let hash = LogFormat.chainHash(previous: head.hash, seq: seq, recordedAt: time, entry: entry)
                    rows.append((entry, seq, time, hash))
                    inBatch[entry.idempotencyKey] = seq
                    outcomes.append(.appended(seq: seq, recordedAt: time))
                    head.seq = seq
                    head.time = time
                    head.hash = hash
                }
                try insert(session, rows)
                return (outcomes, head)
            }
        }
        knownEnvironment.withLock { $0 = head.environment }
        if let identity = head.identity { knownIdentity.withLock { $0 = identity } }
        lastHead.withLock { last in
            if head.seq >= last.seq { last = (head.seq, head.hash, head.time) }
        }
        return outcomes
    }

    /// The head, and the environment (binding it now when this is the first append). Holding the writers' lock.
    private func lockedHead(_ session: PostgresSession) throws(LogError) -> PostgresHead {
        let result = try session.execute(
            """
            SELECT m.environment, m.format, r.seq, r.hash, r.recorded_at, \(PostgresSchema.identitySelect)
            FROM (SELECT 1) AS one
            LEFT JOIN meta AS m ON m.id = 1
            LEFT JOIN (SELECT seq, hash, recorded_at FROM records ORDER BY seq DESC LIMIT 1) AS r ON true
            """)
        let environment: String
        if result.isNull(0, 0) {
            guard let requested = requestedEnvironment else {
                throw LogError(
                    .environmentUnknown,
                    "the ledger at \(path) has never been written and no environment was given; open the writer "
                        + "with an environment")
            }
            try session.execute(
                "INSERT INTO meta (id, format, environment, genesis) VALUES (1, $1, $2, $3)",
                [
                    .int32(Int32(PostgresSchema.version)), .text(requested),
                    .bytes(LogFormat.genesis(environment: requested)),
                ])
            environment = requested
        } else {
            environment = result.text(0, 0)
            let format = try Self.integer(result, 0, 1)
            guard format <= PostgresSchema.version else {
                throw LogError(
                    .unsupportedVersion,
                    "the ledger at \(path) has format \(format); this program writes format "
                        + "\(PostgresSchema.version): upgrade the ledger")
            }
            if let requested = requestedEnvironment, requested != environment {
                throw Self.mismatch(bound: environment, wanted: requested, path)
            }
        }
        let identity = try bindIdentity(session, bound: Self.identity(result, 0, 5))
        if result.isNull(0, 2) {
            return PostgresHead(
                seq: 0, hash: LogFormat.genesis(environment: environment), time: 0, environment: environment,
                identity: identity)
        }
        return PostgresHead(
            seq: UInt64(try Self.integer(result, 0, 2)), hash: result.bytes(0, 3), time: try Self.integer(result, 0, 4),
            environment: environment, identity: identity)
    }

    /// Refuses a writer of another app, and records the writer's identity when `meta` lacks it (or its App Apple
    /// ID); returns the identity bound now. Holding the writers' lock, `meta`'s row written.
    private func bindIdentity(_ session: PostgresSession, bound: AppIdentity?) throws(LogError) -> AppIdentity? {
        guard let app = requestedApp else { return bound }
        if let bound, let refusal = bound.refusal(of: app, at: "the ledger at \(path)") { throw refusal }
        let binding: AppIdentity
        if let bound {
            guard let added = bound.adding(app) else { return bound }
            binding = added
        } else {
            binding = app
        }
        try session.execute(PostgresSchema.identityColumns)
        if let appAppleId = binding.appAppleId {
            try session.execute(
                "UPDATE meta SET bundle_id = $1, app_apple_id = $2 WHERE id = 1",
                [.text(binding.bundleId), .int64(appAppleId)])
        } else {
            try session.execute("UPDATE meta SET bundle_id = $1 WHERE id = 1", [.text(binding.bundleId)])
        }
        return binding
    }

    /// The seqs of those keys that are already stored.
    private func storedSeqs(_ session: PostgresSession, keys: [String]) throws(LogError) -> [String: UInt64] {
        let result = try session.execute(
            "SELECT idempotency_key, seq FROM records WHERE idempotency_key = ANY($1)", [.textArray(keys)])
        var seqs: [String: UInt64] = [:]
        for row in 0..<result.rowCount { seqs[result.text(row, 0)] = UInt64(try Self.integer(result, row, 1)) }
        return seqs
    }

    /// Inserts records (a multi-row INSERT per 1,000) and their distinct subject keys (one INSERT from arrays).
    private func insert(
        _ session: PostgresSession, _ rows: [(entry: LogEntry, seq: UInt64, time: Int64, hash: [UInt8])]
    ) throws(LogError) {
        let chunk = 1_000
        for start in stride(from: 0, to: rows.count, by: chunk) {
            let slice = rows[start..<min(start + chunk, rows.count)]
            var sql = "INSERT INTO records (\(PostgresSchema.recordColumns)) VALUES "
            var parameters: [PostgresValue] = []
            parameters.reserveCapacity(slice.count * 6)
            for (index, row) in slice.enumerated() {
                let base = index * 6
                sql += index == 0 ? "" : ","
                sql += "($\(base + 1),$\(base + 2),$\(base + 3),$\(base + 4),$\(base + 5),$\(base + 6))"
                parameters.append(.int64(Int64(row.seq)))
                parameters.append(.int64(row.time))
                parameters.append(.text(row.entry.idempotencyKey))
                parameters.append(.textArray(row.entry.subjectKeys))
                parameters.append(.bytes(row.entry.payload))
                parameters.append(.bytes(row.hash))
            }
            try session.execute(sql, parameters)
        }
        var keys: [String] = []
        var seqs: [Int64] = []
        for row in rows {
            var seen = Set<String>()
            for key in row.entry.subjectKeys where seen.insert(key).inserted {
                keys.append(key)
                seqs.append(Int64(row.seq))
            }
        }
        if !keys.isEmpty {
            try session.execute(
                "INSERT INTO record_subjects (subject_key, seq) SELECT * FROM unnest($1::text[], $2::int8[])",
                [.textArray(keys), .int64Array(seqs)])
        }
    }

    /// An integer column, or damage.
    static func integer(_ result: PostgresResult, _ row: Int, _ column: Int) throws(LogError) -> Int64 {
        do {
            return try result.integer(row, column)
        } catch {
            throw PostgresSession.logError(error)
        }
    }
}
