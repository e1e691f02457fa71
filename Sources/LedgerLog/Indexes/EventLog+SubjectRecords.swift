import LedgerStore
import LedgerSystem

extension EventLog {
    /// Calls `body` with every record about `key` whose seq is not in `skipping`, in seq order, in place: the
    /// view is valid only during the call. One lock hop for the index; the records a cluster file holds are read
    /// from its run, side by side (``SubjectCluster``), the others from the log's mapped segments or with a
    /// `pread` of their exact frames (neighbours in a segment share one); every checksum is checked. Records that
    /// only share the key's 64-bit hash are left out.
    /// - Throws: ``LogError`` (`damaged`, `notWritable` once closed, a read failure), or what `body` throws.
    public func forEachRecord(
        forSubjectKey key: String, skipping seen: Set<UInt64> = [], _ body: (LogRecordView) throws -> Void
    ) throws {
        try forEachRecord(forSubjectKey: key, body) { seen.isEmpty || !seen.contains($0) }
    }

    /// ``forEachRecord(forSubjectKey:skipping:_:)`` leaving out the seqs of `seen`, ascending (a few dozen seqs
    /// are looked up faster there than hashed).
    public func forEachRecord(
        forSubjectKey key: String, skippingSorted seen: [UInt64], _ body: (LogRecordView) throws -> Void
    ) throws {
        try forEachRecord(forSubjectKey: key, body) { seq in
            guard !seen.isEmpty else { return true }
            let at = seen.partitioningIndex { $0 >= seq }
            return at == seen.count || seen[at] != seq
        }
    }

    private func forEachRecord(
        forSubjectKey key: String, _ body: (LogRecordView) throws -> Void, wanted: (UInt64) -> Bool
    ) throws {
        var key = key
        let hash = key.withUTF8 { StableHash.hash(UnsafeRawBufferPointer($0)) }
        var (candidates, segments, clusters) = try lock.withLock { () throws(LogError) in
            guard !state.closed else { throw Self.closedError }
            if let seqs = fileLookupLocked(hash: hash) {
                let offsets = [UInt32](repeating: SubjectIndex.unknownOffset, count: seqs.count)
                return (SubjectIndex.Candidates(seqs: seqs, offsets: offsets), state.segments, [SubjectCluster]())
            }
            try ensureIndexesLocked()
            return (state.indexes.subjects.placedCandidates(hash: hash), state.segments, state.clusters.files)
        }
        var kept = 0
        for index in candidates.seqs.indices where wanted(candidates.seqs[index]) {
            candidates.seqs[kept] = candidates.seqs[index]
            candidates.offsets[kept] = candidates.offsets[index]
            kept += 1
        }
        guard kept > 0 else { return }
        candidates.seqs.removeLast(candidates.seqs.count - kept)
        candidates.offsets.removeLast(candidates.offsets.count - kept)
        // The records a cluster file holds intact are read there, side by side; the others from the log.
        let clustered = SubjectCluster.records(candidates.seqs, hash: hash, in: clusters)
        var reader = SubjectReader(fileSystem: fileSystem, segments: segments, maps: segmentMaps)
        try reader.forEach(candidates, holding: &key, clustered: clustered, body)
    }
}

extension EventLog {
    /// How many look-ups a reader answers from the subject index file before it loads its indexes: a rebuild's
    /// one look-up (the catalog's records) and a command's few need not load the whole index; a reader that goes
    /// on querying loads it.
    static let fileLookupLimit = 4

    /// The candidate seqs of a subject key hash from the subject index file, for a reader whose indexes are not
    /// loaded yet and which has made fewer than ``fileLookupLimit`` such look-ups; nil when the indexes are
    /// loaded, the limit is reached, or the file does not cover the head exactly. Holding the lock.
    func fileLookupLocked(hash: UInt64) -> [UInt64]? {
        guard !state.indexes.ready, state.indexes.fileLookups < Self.fileLookupLimit,
            let seqs = indexFiles.subjectSeqs(hash: hash, headSeq: state.head.seq, headHash: state.head.hash)
        else { return nil }
        state.indexes.fileLookups += 1
        return seqs
    }
}

extension EventLog {
    /// Through ``forEachRecord(forSubjectKey:skipping:_:)``: no copy of a record.
    public func forEachPayload(
        forSubjectKey key: String, skipping: Set<UInt64>, _ body: (UInt64, Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try forEachRecord(forSubjectKey: key, skipping: skipping) { view in
            try body(view.seq, view.recordedAt, view.payload)
        }
    }
}

extension EventLog {
    /// Calls `body` with each record of `seqs` (ascending, each in the log) in place, in that order: the view is
    /// valid only during the call. Neighbouring records of a segment are read with one `pread`; every checksum
    /// is checked.
    /// - Throws: ``LogError`` (`notFound` for a seq past the head, `damaged`, a read failure), or what `body`
    ///   throws.
    public func forEachRecord(seqs: [UInt64], _ body: (LogRecordView) throws -> Void) throws {
        let segments = try readableSegments()
        var reader = SubjectReader(fileSystem: fileSystem, segments: segments, maps: segmentMaps)
        try reader.forEach(seqs, body)
    }
}
