import LedgerStore
import LedgerSystem

extension EventLog {
    /// The seqs of every record about `key`, in order (empty for an unknown subject).
    public func seqs(forSubjectKey key: String) -> [UInt64] {
        guard let (candidates, segments) = try? subjectCandidates(key) else { return [] }
        // Confirm: two subjects may share a 64-bit hash.
        return candidates.filter { seq in
            (try? SegmentReader.readRecord(fileSystem, segments, seq: seq))?.subjectKeys.contains(key) ?? false
        }
    }

    /// Every record about `key` whose seq is not in `skipping`, in seq order: each candidate is read once,
    /// and the ones the caller already holds are not read at all.
    public func records(forSubjectKey key: String, skipping seen: Set<UInt64>) throws(LogError) -> [LogRecord] {
        let (candidates, segments) = try subjectCandidates(key)
        var records: [LogRecord] = []
        for seq in candidates where !seen.contains(seq) {
            let record = try SegmentReader.readRecord(fileSystem, segments, seq: seq)
            if record.subjectKeys.contains(key) { records.append(record) }
        }
        return records
    }

    /// The seqs the subject index gives for `key`'s hash (records of other keys sharing it among them), and the
    /// segments to read them from.
    private func subjectCandidates(_ key: String) throws(LogError) -> (seqs: [UInt64], segments: [Segment]) {
        let hash = StableHash.hash(key)
        return try lock.withLock { () throws(LogError) in
            guard !state.closed else { throw Self.closedError }
            try ensureIndexesLocked()
            return (state.indexes.subjects.candidates(hash: hash), state.segments)
        }
    }

    /// Every record about `key`, in seq order.
    public func records(forSubjectKey key: String) throws(LogError) -> [LogRecord] {
        try records(forSubjectKey: key, skipping: [])
    }

    /// The seq of the record appended with this idempotency key, if any.
    public func seq(forIdempotencyKey key: String) -> UInt64? {
        lock.withLock {
            guard !state.closed, (try? ensureIndexesLocked()) != nil else { return nil }
            return lookupKeyLocked(key, hash: StableHash.hash(key))
        }
    }

    /// How many distinct subjects the index holds.
    public var subjectCount: Int {
        lock.withLock {
            guard !state.closed, (try? ensureIndexesLocked()) != nil else { return 0 }
            return state.indexes.subjects.subjectCount
        }
    }

    /// Loads a reader's indexes on first use: from the index files when they match this log (then only the
    /// records after their covered seq are indexed), else by scanning the whole log. Holding the lock.
    func ensureIndexesLocked() throws(LogError) {
        guard !state.indexes.ready else { return }
        state.indexes = try LogIndexes.loading(
            indexFiles, state.segments, through: state.head.seq, genesisHash: state.headHashAtGenesis)
        loadClustersLocked()
        state.indexes.ready = true
    }

    /// Looks a key up, confirming a hash hit by reading the record. Holding the lock.
    func lookupKeyLocked(_ key: String, hash: UInt64) -> UInt64? {
        let segments = state.segments
        return state.indexes.keys.seq(for: key, hash: hash) { seq in
            (try? SegmentReader.readRecord(fileSystem, segments, seq: seq))?.idempotencyKey
        }
    }

    /// Re-derives both indexes from the log (checking every checksum) and, for the writer, rewrites their files
    /// and the cluster files.
    public func rebuildIndexes(progress: ((UInt64) -> Void)? = nil) throws(LogError) {
        let clustering = try lock.withLock { () throws(LogError) -> Bool in
            guard !state.closed else { throw Self.closedError }
            // The maintenance worker's turn ends first: it writes index files of the indexes being replaced.
            stopMaintenanceLocked()
            guard !state.closed else { throw Self.closedError }
            try rebuildIndexesLocked(progress: progress)
            state.indexes.ready = true
            guard isWriter else { return false }
            try writeIndexesLocked()
            dropClustersLocked()
            state.maintaining = options.clusterMinimum > 0
            return state.maintaining
        }
        // The cluster files, written again (not holding the lock: appends go on meanwhile).
        if clustering, let failure = clusterRecords(finishing: true) { throw failure }
    }

    /// Rebuilds the in-memory indexes by scanning the whole log. Holding the lock.
    func rebuildIndexesLocked(progress: ((UInt64) -> Void)? = nil) throws(LogError) {
        state.indexes = try LogIndexes.scanning(fileSystem, state.segments, through: state.head.seq, progress: progress)
    }

    /// Writes the index files (keys, subjects, components, record positions) for the current head. Holding the lock.
    func writeIndexesLocked() throws(LogError) {
        let snapshot = indexSnapshotLocked()
        try indexFiles.write(snapshot)
        state.indexes.coveredSeq = snapshot.covered
    }

    /// What the index files of the current head hold, taken holding the lock. The indexes are copied on write, so
    /// taking it costs nothing; the next append that changes them copies them once.
    func indexSnapshotLocked() -> IndexSnapshot {
        IndexSnapshot(
            covered: state.head.seq, hash: state.head.hash, keys: state.indexes.keys,
            subjects: state.indexes.subjects, segments: state.segments)
    }

    /// Writes a derived file that reflects the log up to `coveredSeq`, whose chain hash is `headHash`.
    public func writeDerived(_ name: String, _ bytes: [UInt8], coveredSeq: UInt64, headHash: [UInt8])
        throws(LogError)
    {
        try DerivedFile.write(
            DerivedFile.Snapshot(coveredSeq: coveredSeq, headHash: headHash, bytes: bytes),
            to: Path.join(directory.index, name), fileSystem: fileSystem)
    }

    /// Reads a derived file; nil when it is missing, damaged, or does not match this log's history (its covered
    /// record is gone or has another hash). The caller then rebuilds it from the log.
    public func readDerived(_ name: String) -> DerivedSnapshot? {
        DerivedFile.read(Path.join(directory.index, name), fileSystem: fileSystem).flatMap {
            holdsHistory(of: $0) ? $0 : nil
        }
    }
}
