import LedgerStore
import LedgerSystem

/// One caller's entries waiting for the group commit.
struct PendingAppend {
    var ticket: Int
    var entries: [LogEntry]
    /// Evidence for these entries was stored without its own sync: the batch makes it durable first.
    var syncEvidenceFirst = false
}

/// What a leader decided for one batch, under the lock: new records with their seqs and times, and every
/// caller's outcomes.
struct BatchPlan {
    /// The requests, as queued (the plan refers to their entries by position, so they are never copied).
    var batch: [PendingAppend]
    var tickets: [Int] = []
    var outcomes: [[AppendOutcome]] = []
    /// The records to write: which request and entry, and the seq, time and key hash given to it.
    var records: [(request: Int32, index: Int32, seq: UInt64, recordedAt: Int64, keyHash: UInt64)] = []

    init(batch: [PendingAppend]) { self.batch = batch }

    /// The entry of a planned record.
    @inline(__always)
    func entry(_ position: Int) -> LogEntry {
        let record = records[position]
        return batch[Int(record.request)].entries[Int(record.index)]
    }

    /// Calls `body` with each planned record's position and entry, in order, reaching each request's entries
    /// through one buffer pointer, so no entry is copied (and retained) per record. Stops when `body` returns
    /// false.
    @inline(__always)
    func forEachEntry(_ body: (Int, UnsafePointer<LogEntry>) -> Bool) {
        var position = 0
        while position < records.count {
            let request = Int(records[position].request)
            let goOn = batch[request].entries.withUnsafeBufferPointer { entries -> Bool in
                while position < records.count && Int(records[position].request) == request {
                    if !body(position, entries.baseAddress! + Int(records[position].index)) { return false }
                    position += 1
                }
                return true
            }
            if !goOn { return }
        }
    }
}

/// What the leader's write produced.
struct BatchWrite {
    var offsets: [UInt32] = []
    var end: Int64 = 0
    var lastHash: [UInt8] = []
    /// The stable hash of every subject key of every record, in order (hashed from the encoded bytes while the
    /// leader wrote them, outside the lock).
    var subjectHashes: [UInt64] = []
}

extension EventLog {
    /// Appends entries durably, all or nothing for this call; thread-safe.
    ///
    /// Returns one outcome per entry, in order, once every new record is on disk (written and `fdatasync`ed).
    /// An entry whose idempotency key is already in the log (or earlier in the same call) is a duplicate and
    /// is not written. Concurrent callers are group-committed: one of them writes everyone's records with one
    /// write and one `fdatasync`.
    /// - Throws: ``LogError/Code/noSpace`` or ``LogError/Code/io`` when the write or sync failed (nothing of this
    ///   call is visible, now or after a restart, and later appends work once the fault clears);
    ///   ``LogError/Code/invalidEntry``; ``LogError/Code/notWritable`` on a reader or a closed log.
    public func append(_ entries: [LogEntry]) throws(LogError) -> [AppendOutcome] {
        try append(entries, syncingEvidenceFirst: false)
    }

    /// Appends entries whose evidence was stored with ``putEvidence(batch:durable:)`` and `durable: false`: the
    /// batch that writes them first makes the evidence pack durable (one `fdatasync` for all the batch's
    /// callers), then writes and syncs the records, so a durable record never references missing evidence and
    /// concurrent webhooks share both flushes.
    public func append(_ entries: [LogEntry], syncingEvidenceFirst: Bool) throws(LogError) -> [AppendOutcome] {
        try entries.withUnsafeBufferPointer { (entries) throws(LogError) in
            for index in entries.indices { try LogEntry.validate(entries.baseAddress! + index) }
        }
        guard !entries.isEmpty else { return [] }
        guard isWriter else { throw LogError(.notWritable, "this log was opened for reading; open it as the writer") }
        lock.lock()
        defer { lock.unlock() }
        guard !state.closed else { throw Self.closedError }
        let ticket = state.writer.commits.enqueue { ticket in
            PendingAppend(ticket: ticket, entries: entries, syncEvidenceFirst: syncingEvidenceFirst)
        }
        while true {
            switch state.writer.commits.next(ticket) {
            case .done(let result): return try result.get()
            case .wait: lock.wait()
            case .lead(let batch): leadLocked(batch.map(\.request))
            }
        }
    }

    /// Calls `observer` with the number of new records of every batch made durable from now on (one write and
    /// one `fdatasync` each), e.g. to publish a histogram of group-commit batch sizes. It runs on the committing
    /// thread while the log's lock is held: keep it cheap and never call back into the log.
    public func observeBatches(_ observer: @escaping @Sendable (Int) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        state.writer.batchObserver = observer
    }

    /// Appends one entry; see ``append(_:)``.
    @discardableResult
    public func append(_ entry: LogEntry) throws(LogError) -> AppendOutcome {
        try append([entry])[0]
    }

    /// Writes the requests the group commit gave this leader as one batch, and publishes the results. Called and
    /// returns holding the lock; releases it while writing.
    private func leadLocked(_ batch: [PendingAppend]) {

        let result: Result<(BatchPlan, BatchWrite), LogError>
        if let environment = state.binding.environment {
            let plan = planLocked(batch)
            let buffer = state.writer.buffer  // only the leader uses it
            let last = state.segments.last.map { ($0.name, $0.fd, $0.size, !$0.offsets.isEmpty) }
            let dirtySegment = state.writer.dirtyTail.map { tail in
                (state.segments[tail.segment].name, state.segments[tail.segment].fd, tail.size)
            }
            let context = WriteContext(
                last: last, segmentCount: state.segments.count, dirty: dirtySegment, headHash: state.head.hash,
                environment: environment, metaWritten: state.binding.metaWritten, identity: state.binding.identity,
                dirtyTail: state.writer.dirtyTail,
                syncEvidenceFirst: batch.contains { $0.syncEvidenceFirst })
            lock.unlock()
            let (written, newSegment, dirty) = writeBatch(plan, context, buffer)
            lock.lock()
            if let newSegment { state.segments.append(newSegment) }
            state.writer.dirtyTail = dirty
            buffer.shrink(above: 64 << 20)
            result = written.map { (plan, $0) }
        } else {
            result = .failure(
                LogError(
                    .environmentUnknown,
                    "\(directory.root) has never been written and no environment was given; open the writer "
                        + "with an environment"))
        }
        switch result {
        case .success(let (plan, written)):
            applyLocked(plan, written)
            state.writer.commits.finish(zip(plan.tickets, plan.outcomes).lazy.map { ($0, .success($1)) })
            state.writer.batchObserver?(plan.records.count)
        case .failure(let error):
            state.writer.commits.finish(batch.lazy.map { ($0.ticket, .failure(error)) })
        }
        lock.broadcast()
        if options.checkpointInterval > 0
            && state.head.seq - state.indexes.coveredSeq >= UInt64(options.checkpointInterval)
        {
            startMaintenanceLocked(checkpoint: true)
        }
    }

    /// Assigns seqs and times, and finds duplicates (in the log or earlier in the batch). Holding the lock.
    private func planLocked(_ batch: [PendingAppend]) -> BatchPlan {
        var plan = BatchPlan(batch: batch)
        var nextSeq = state.head.seq + 1
        var time = state.head.time
        let now = clock()
        var entryCount = 0
        for request in batch { entryCount += request.entries.count }
        plan.records.reserveCapacity(entryCount)
        plan.tickets.reserveCapacity(batch.count)
        plan.outcomes.reserveCapacity(batch.count)
        // Keys earlier in this batch: hash → index in plan.records + 1; distinct keys sharing a hash go by name.
        var inBatch = HashTable64(capacity: entryCount)
        var inBatchCollisions: [String: UInt64] = [:]
        let keys = state.indexes.keys
        for requestIndex in batch.indices {
            var outcomes: [AppendOutcome] = []
            outcomes.reserveCapacity(batch[requestIndex].entries.count)
            batch[requestIndex].entries.withUnsafeBufferPointer { entries in
                for entryIndex in entries.indices {
                    let hash = RecordCodec.keyHash(entries[entryIndex].idempotencyKey)
                    var earlier: UInt64?
                    if let position = inBatch.find(hash) {
                        let key = entries[entryIndex].idempotencyKey
                        let seq = plan.records[Int(position) - 1].seq
                        earlier = plan.entry(Int(position) - 1).idempotencyKey == key ? seq : inBatchCollisions[key]
                    }
                    // A key whose hash the index has never seen is new without reading anything.
                    if earlier == nil && (!keys.overflow.isEmpty || keys.table.find(hash) != nil) {
                        earlier = lookupKeyLocked(entries[entryIndex].idempotencyKey, hash: hash)
                    }
                    if let seq = earlier {
                        outcomes.append(.duplicate(seq: seq))
                        continue
                    }
                    time = max(time, entries[entryIndex].recordedAt ?? now)
                    plan.records.append((Int32(requestIndex), Int32(entryIndex), nextSeq, time, hash))
                    if inBatch.find(hash) == nil {
                        inBatch.set(hash, UInt64(plan.records.count))
                    } else {
                        inBatchCollisions[entries[entryIndex].idempotencyKey] = nextSeq
                    }
                    outcomes.append(.appended(seq: nextSeq, recordedAt: time))
                    nextSeq += 1
                }
            }
            plan.tickets.append(batch[requestIndex].ticket)
            plan.outcomes.append(outcomes)
        }
        return plan
    }

    /// How many records' index slots are prefetched ahead of their inserts.
    static let lookahead = 32
    /// From how many records a batch's two indexes are updated on two threads at once.
    static let parallelApply = 4096

    /// Makes a durably written batch visible: offsets, head, indexes. Holding the lock.
    ///
    /// The idempotency keys and the subjects are independent tables: a large batch updates them on two threads
    /// at once (their cache misses overlapping too), a small one in turn.
    private func applyLocked(_ plan: BatchPlan, _ written: BatchWrite) {
        guard let last = plan.records.last else { return }
        state.binding.metaWritten = true
        let index = state.segments.count - 1
        state.segments[index].offsets.append(contentsOf: written.offsets)
        state.segments[index].size = written.end
        // Moved out of the state while updated: unique (no copy on write) and no exclusivity check per record.
        var keys = state.indexes.keys
        var subjects = state.indexes.subjects
        state.indexes.keys = KeyIndex()
        state.indexes.subjects = SubjectIndex()
        if plan.records.count >= Self.parallelApply && onlineProcessorCount > 1 {
            withUnsafeMutablePointer(to: &keys) { keys in
                withUnsafeMutablePointer(to: &subjects) { subjects in
                    let work = ApplyWork(plan: plan, written: written, keys: keys, subjects: subjects)
                    runThreads(2) { part in
                        if part == 0 {
                            Self.insertKeys(work.plan, into: &work.keys.pointee)
                        } else {
                            Self.insertSubjects(work.plan, work.written, into: &work.subjects.pointee)
                        }
                    }
                }
            }
        } else {
            Self.insertKeys(plan, into: &keys)
            Self.insertSubjects(plan, written, into: &subjects)
        }
        state.indexes.keys = keys
        state.indexes.subjects = subjects
        state.head.seq = last.seq
        state.head.time = last.recordedAt
        state.head.hash = written.lastHash
    }

    /// Adds a batch's idempotency keys (new ones: the plan left duplicates out).
    private static func insertKeys(_ plan: BatchPlan, into keys: inout KeyIndex) {
        // Room for the whole batch at once: one rehash, not one per doubling.
        keys.table.reserve(plan.records.count)
        plan.records.withUnsafeBufferPointer { records in
            plan.forEachEntry { position, entry in
                if position & (lookahead - 1) == 0 {
                    // Prefetch the slots of the next records first: their cache misses overlap, so the inserts
                    // that follow find the lines in the cache.
                    for ahead in position..<min(position + lookahead, records.count) {
                        keys.table.prefetch(records[ahead].keyHash)
                    }
                }
                let record = records[position]
                let taken = keys.table.update(record.keyHash) { seq in if seq == 0 { seq = record.seq } }
                if taken { keys.overflow[entry.pointee.idempotencyKey] = record.seq }
                return true
            }
        }
    }

    /// Adds a batch's records under their subjects (hashed by the write, in order).
    private static func insertSubjects(_ plan: BatchPlan, _ written: BatchWrite, into subjects: inout SubjectIndex) {
        subjects.heads.reserve(plan.records.count)
        written.subjectHashes.withUnsafeBufferPointer { subjectHashes in
            plan.records.withUnsafeBufferPointer { records in
                var nextHash = 0
                plan.forEachEntry { position, entry in
                    if position & (lookahead - 1) == 0 {
                        for ahead in nextHash..<min(nextHash + 2 * lookahead, subjectHashes.count) {
                            subjects.heads.prefetch(subjectHashes[ahead])
                        }
                    }
                    let count = entry.pointee.subjectKeys.count
                    let first = nextHash
                    subjects.insert(seq: records[position].seq, count: count) { subjectHashes[first + $0] }
                    nextHash += count
                    return true
                }
            }
        }
    }
}

/// What the two threads of ``EventLog/applyLocked(_:_:)`` share.
///
/// `@unchecked Sendable`: both threads only read the plan and the write; one thread alone changes the keys, the
/// other the subjects, and both are joined before the pointers' scopes end.
private struct ApplyWork: @unchecked Sendable {
    let plan: BatchPlan
    let written: BatchWrite
    let keys: UnsafeMutablePointer<KeyIndex>
    let subjects: UnsafeMutablePointer<SubjectIndex>
}
