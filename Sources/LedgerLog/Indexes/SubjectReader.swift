import LedgerStore
import LedgerSystem

/// Reads given records of a log (ascending seqs) in place: from the mapping of a sealed segment (see
/// ``SegmentMaps``), else coalescing neighbours of a segment into one read.
struct SubjectReader: ~Copyable {
    /// The largest run of neighbouring records read with one `pread`, in bytes.
    static let runLimit = 64 << 10
    /// Records at most this many bytes apart in a segment are read together (the bytes between are read too).
    static let gapLimit = 2 << 10

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
                next.start >= end, next.start - end <= Int64(Self.gapLimit),
                next.end - first.start <= Int64(Self.runLimit)
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

    /// Calls `body` with each of `candidates` (ascending) whose subject keys hold `key`, in seq order: those
    /// `clustered` holds (by position; nil: none) from there, the others read from the log between them.
    mutating func forEach(
        _ candidates: SubjectIndex.Candidates, holding key: inout String, clustered: [LogRecordView?]?,
        _ body: (LogRecordView) throws -> Void
    ) throws {
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
                try forEach(candidates.seqs, offsets: candidates.offsets, deliver)
                return
            }
            // Each run of records the clusters lack is read from the log between those they hold.
            var missing = 0..<0
            for position in candidates.seqs.indices {
                guard let view = clustered[position] else {
                    if missing.isEmpty { missing = position..<position }
                    missing = missing.lowerBound..<(position + 1)
                    continue
                }
                if !missing.isEmpty {
                    try forEach(Array(candidates.seqs[missing]), offsets: Array(candidates.offsets[missing]), deliver)
                    missing = 0..<0
                }
                try deliver(view)
            }
            if !missing.isEmpty {
                try forEach(Array(candidates.seqs[missing]), offsets: Array(candidates.offsets[missing]), deliver)
            }
        }
    }
}
