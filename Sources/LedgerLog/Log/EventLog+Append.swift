import LedgerStore
import LedgerSystem

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
            let segments = state.segments
            let plan = BatchPlan(
                batch, after: state.head, now: clock(), keys: state.indexes.keys,
                confirm: { seq in (try? SegmentReader.readRecord(self.fileSystem, segments, seq: seq))?.idempotencyKey }
            )
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
            let (written, newSegment, dirty) = batchWriter.write(plan, context, buffer)
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

    /// Makes a durably written batch visible: offsets, head, indexes. Holding the lock.
    private func applyLocked(_ plan: BatchPlan, _ written: BatchWrite) {
        guard let last = plan.records.last else { return }
        state.binding.metaWritten = true
        let index = state.segments.count - 1
        state.segments[index].offsets.append(contentsOf: written.offsets)
        state.segments[index].size = written.end
        state.indexes.add(plan, written)
        state.head.seq = last.seq
        state.head.time = last.recordedAt
        state.head.hash = written.lastHash
    }
}
