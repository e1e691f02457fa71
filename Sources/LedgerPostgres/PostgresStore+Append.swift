import LedgerCrypto
import LedgerStore

/// A record about to be inserted.
struct PostgresRow {
    var entry: LogEntry
    var seq: UInt64
    var time: Int64
    var hash: [UInt8]
}

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

    /// One transaction holding the batch and the evidence put since the last one (the batch's subject keys are
    /// indexed after it: ``indexSubjects()``).
    ///
    /// After this handle's own commit the head is known, so the transaction goes in one round trip: lock, insert
    /// and commit assuming that head. When another writer moved the head, or a key is stored already, the
    /// inserts collide with the stored rows (seq and idempotency key are unique), the transaction rolls back,
    /// and it runs again the long way: lock, read the head and the stored keys, insert, commit.
    func commitBatch(_ entries: [LogEntry]) throws(LogError) -> [AppendOutcome] {
        let evidence = pendingEvidence.withLock { pending in
            defer { pending = [] }
            return pending
        }
        let outcomes: [AppendOutcome]
        let head: PostgresHead
        do throws(LogError) {
            (outcomes, head) = try withWriter { session throws(LogError) -> ([AppendOutcome], PostgresHead) in
                try session.createTables()
                if let assumed = session.committedHead {
                    session.committedHead = nil
                    let batch = plan(entries, after: assumed, stored: [:])
                    do throws(LogError) {
                        try Self.commit(
                            batch.rows, evidence: evidence, session,
                            opening: [PostgresStatement("BEGIN"), PostgresStatement(PostgresSchema.lockStatement)])
                        session.committedHead = batch.head
                        return (batch.outcomes, batch.head)
                    } catch {
                        // Another writer appended, or a key is stored already: the long way below.
                        guard Self.isCollision(error) else { throw error }
                    }
                }
                try session.run("BEGIN")
                let batch: (outcomes: [AppendOutcome], rows: [PostgresRow], head: PostgresHead)
                do throws(LogError) {
                    try session.execute(PostgresSchema.lockStatement)
                    let head = try lockedHead(session)
                    batch = plan(
                        entries, after: head, stored: try storedSeqs(session, keys: entries.map(\.idempotencyKey)))
                } catch {
                    session.rollback()
                    throw error
                }
                try Self.commit(batch.rows, evidence: evidence, session, opening: [])
                session.committedHead = batch.head
                return (batch.outcomes, batch.head)
            }
        } catch {
            // Evidence must reach the database before the records that name it, whoever's batch carries them.
            if !evidence.isEmpty { pendingEvidence.withLock { $0.insert(contentsOf: evidence, at: 0) } }
            throw error
        }
        knownEnvironment.withLock { $0 = head.environment }
        if let identity = head.identity { knownIdentity.withLock { $0 = identity } }
        lastHead.withLock { last in
            if head.seq >= last.seq { last = (head.seq, head.hash, head.time) }
        }
        let appended = outcomes.contains { outcome in
            if case .appended = outcome { return true }
            return false
        }
        if appended { scheduleSubjectIndexing() }
        return outcomes
    }

    /// Seqs, times and chain hashes for the entries after `head`; entries whose key is `stored` or earlier in the
    /// batch are duplicates.
    private func plan(_ entries: [LogEntry], after head: PostgresHead, stored: [String: UInt64])
        -> (outcomes: [AppendOutcome], rows: [PostgresRow], head: PostgresHead)
    {
        var head = head
        var outcomes: [AppendOutcome] = []
        outcomes.reserveCapacity(entries.count)
        var inBatch: [String: UInt64] = [:]
        var rows: [PostgresRow] = []
        rows.reserveCapacity(entries.count)
        let now = clock()
        for entry in entries {
            if let seq = stored[entry.idempotencyKey] ?? inBatch[entry.idempotencyKey] {
                outcomes.append(.duplicate(seq: seq))
                continue
            }
            let seq = head.seq + 1
            let time = max(head.time, entry.recordedAt ?? now)
            let hash = LogFormat.chainHash(previous: head.hash, seq: seq, recordedAt: time, entry: entry)
            rows.append(PostgresRow(entry: entry, seq: seq, time: time, hash: hash))
            inBatch[entry.idempotencyKey] = seq
            outcomes.append(.appended(seq: seq, recordedAt: time))
            head.seq = seq
            head.time = time
            head.hash = hash
        }
        return (outcomes, rows, head)
    }

    /// Whether an append failed on a unique key: the head it assumed moved, or a key was stored already.
    static func isCollision(_ error: LogError) -> Bool {
        (error.cause as? PostgresError)?.sqlState == "23505"
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
                "INSERT INTO meta (id, format, environment, genesis, subjects_through) VALUES (1, $1, $2, $3, 0)",
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

    /// An integer column, or damage.
    static func integer(_ result: PostgresResult, _ row: Int, _ column: Int) throws(LogError) -> Int64 {
        do {
            return try result.integer(row, column)
        } catch {
            throw PostgresSession.logError(error)
        }
    }
}
