import LedgerStore
import LedgerSystem

extension EventLog {
    /// The largest run of neighbouring records read with one `pread`, in bytes.
    static let subjectRunLimit = 64 << 10
    /// Records at most this many bytes apart in a segment are read together (the bytes between are read too).
    static let subjectGapLimit = 2 << 10

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
            return (state.indexes.subjects.placedCandidates(hash: hash), state.segments, state.clusters)
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
        try key.withUTF8 { utf8 in
            let keyBytes = UnsafeRawBufferPointer(utf8)
            func deliver(_ view: LogRecordView) throws {
                var matches = false
                view.forEachSubjectKey { subject in
                    if !matches, subject.elementsEqual(keyBytes) { matches = true }
                }
                if matches { try body(view) }
            }
            guard let clustered else {
                try reader.forEach(candidates.seqs, offsets: candidates.offsets, deliver)
                return
            }
            // In seq order: each run of records the clusters lack is read from the log between those they hold.
            var missing = 0..<0
            for position in candidates.seqs.indices {
                guard let view = clustered[position] else {
                    if missing.isEmpty { missing = position..<position }
                    missing = missing.lowerBound..<(position + 1)
                    continue
                }
                if !missing.isEmpty {
                    try reader.forEach(
                        Array(candidates.seqs[missing]), offsets: Array(candidates.offsets[missing]), deliver)
                    missing = 0..<0
                }
                try deliver(view)
            }
            if !missing.isEmpty {
                try reader.forEach(
                    Array(candidates.seqs[missing]), offsets: Array(candidates.offsets[missing]), deliver)
            }
        }
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
            let seqs = subjectSeqsFromFile(hash: hash, headSeq: state.head.seq, headHash: state.head.hash)
        else { return nil }
        state.indexes.fileLookups += 1
        return seqs
    }
}

/// Reads given records of a log (ascending seqs) in place: from the mapping of a sealed segment (see
/// ``SegmentMaps``), else coalescing neighbours of a segment into one read.
struct SubjectReader: ~Copyable {
    private let fileSystem: any FileSystem
    private let segments: [Segment]
    private let maps: SegmentMaps
    private var buffer: UnsafeMutableRawBufferPointer
    /// The mapping of the segment read last, by its index.
    private var mapped: (segment: Int, region: UnsafeRawBufferPointer?)?

    init(fileSystem: any FileSystem, segments: [Segment], maps: SegmentMaps) {
        self.fileSystem = fileSystem
        self.segments = segments
        self.maps = maps
        self.buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 << 10, alignment: 16)
    }

    /// The mapping of segment `index` when it is sealed (not the last) and can be mapped.
    private mutating func region(of index: Int) -> UnsafeRawBufferPointer? {
        guard index + 1 < segments.count else { return nil }
        if let mapped, mapped.segment == index { return mapped.region }
        let region = maps.region(of: segments[index], fileSystem)
        mapped = (index, region)
        return region
    }

    deinit { buffer.deallocate() }

    /// How many bytes of a record the index placed are prefetched: most records are shorter, and the rest of a
    /// longer one is loaded as it is read.
    private static let placedPrefetchBytes = 640

    /// Starts loading the cache lines of every record of `seqs` that lies in a mapped segment, before any is
    /// parsed (see ``prefetchCacheLines(_:)``): a subject's records are scattered over the log, and their cache
    /// misses then overlap instead of coming one record, and one line of it, at a time. A record the index
    /// placed (`offsets`) is not looked up in its segment's offsets, whose line would be one more miss.
    private mutating func prefetch(_ seqs: [UInt64], offsets: [UInt32]?) {
        for (position, seq) in seqs.enumerated() {
            if let offset = offsets?[position], offset != SubjectIndex.unknownOffset {
                guard let index = SegmentReader.segmentIndex(segments, seq: seq), let region = region(of: index) else {
                    continue
                }
                let start = Int(offset)
                let end = min(start + Self.placedPrefetchBytes, region.count)
                if start < end { prefetchCacheLines(UnsafeRawBufferPointer(rebasing: region[start..<end])) }
                continue
            }
            guard let place = place(of: seq), let region = region(of: place.segment) else { continue }
            let start = Int(place.start)
            let end = min(Int(place.end), region.count)
            guard start < end else { continue }
            prefetchCacheLines(UnsafeRawBufferPointer(rebasing: region[start..<end]))
        }
    }

    /// Where record `seq` is: its segment's index, its offset, and the offset of the byte after its frame.
    private func place(of seq: UInt64) -> (segment: Int, start: Int64, end: Int64)? {
        guard seq > 0, let (index, start) = SegmentReader.locate(segments, seq: seq) else { return nil }
        let segment = segments[index]
        let next = Int(seq - segment.firstSeq) + 1
        let end = next < segment.offsets.count ? Int64(segment.offsets[next]) : segment.size
        return (index, start, end)
    }

    /// Record `seq` read in place where the index placed it (`offset` in its sealed segment's mapping), its
    /// checksum checked; nil when it is not mapped, not placed, or the frame there is not that record intact
    /// (the caller then finds it by its segment's offsets, and reports what is wrong with it).
    private mutating func placedRecord(_ seq: UInt64, at offset: UInt32) -> LogRecordView? {
        guard offset != SubjectIndex.unknownOffset, let index = SegmentReader.segmentIndex(segments, seq: seq),
            let region = region(of: index), Int(offset) < region.count, let base = region.baseAddress
        else { return nil }
        guard case .record(let view) = RecordCodec.parse(base + Int(offset), available: region.count - Int(offset)),
            view.seq == seq
        else { return nil }
        return view
    }

    /// Calls `body` with each record of `seqs` (ascending), its checksum checked. `offsets`, when given, holds
    /// where the subject index places each one (``SubjectIndex/unknownOffset``: not placed).
    mutating func forEach(_ seqs: [UInt64], offsets: [UInt32]? = nil, _ body: (LogRecordView) throws -> Void) throws {
        prefetch(seqs, offsets: offsets)
        var position = 0
        while position < seqs.count {
            if let offsets, let view = placedRecord(seqs[position], at: offsets[position]) {
                try body(view)
                position += 1
                continue
            }
            guard let first = place(of: seqs[position]) else {
                throw LogError(.notFound, "the log has no record \(seqs[position])")
            }
            // Extend the run while the next record is in the same segment, close, and the run stays small.
            var last = position
            var end = first.end
            while last + 1 < seqs.count, let next = place(of: seqs[last + 1]), next.segment == first.segment,
                next.start >= end, next.start - end <= Int64(EventLog.subjectGapLimit),
                next.end - first.start <= Int64(EventLog.subjectRunLimit)
            {
                last += 1
                end = next.end
            }
            let count = Int(end - first.start)
            let segment = segments[first.segment]
            let got: Int
            let base: UnsafeRawPointer
            if let region = region(of: first.segment) {
                // In place in the mapping (its bytes end at the segment's logical end).
                base = region.baseAddress! + Int(first.start)
                got = max(0, min(count, region.count - Int(first.start)))
            } else {
                if count > buffer.count {
                    buffer.deallocate()
                    buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
                }
                let run = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
                do {
                    got = try fileSystem.readFully(segment.fd, into: run, at: first.start)
                } catch {
                    throw LogError.system(error, "reading record \(seqs[position]) from \(segment.name)")
                }
                base = UnsafeRawPointer(buffer.baseAddress!)
            }
            for index in position...last {
                let seq = seqs[index]
                let (_, start, end) = place(of: seq)!
                let at = Int(start - first.start)
                guard Int(end - first.start) <= got else {
                    throw LogError.unreadable(segment: segment.name, offset: start, seq: seq)
                }
                switch RecordCodec.parse(base + at, available: Int(end - start)) {
                case .record(let view) where view.seq == seq:
                    try body(view)
                case .newerVersion(let version):
                    throw LogError.unreadable(segment: segment.name, offset: start, seq: seq, newerVersion: version)
                default:
                    throw LogError.unreadable(segment: segment.name, offset: start, seq: seq)
                }
            }
            position = last + 1
        }
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
