import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Every record of a log up to its head when it was made, in memory, for reads in place in any order and from
/// several threads: the sealed segments through their read-only mappings (``SegmentMaps``), the last segment (and
/// any segment the file system does not map) read once, in large sequential reads, into memory of its own.
///
/// Where each record starts is copied from the segments' offsets into one side array (4 bytes a record), so a read
/// costs no lock, no search of a segment's offsets and no reference counting. Every read parses the frame and
/// checks that it holds the record asked for and fills its slot exactly; its checksum is checked unless the
/// caller asks not to (see ``record(_:checkCRC:)``). A damaged record throws ``LogError/Code/damaged``.
///
/// `@unchecked Sendable`: nothing in it changes after `init`; the memory it owns is freed only in `deinit`, and the
/// mappings it borrows live as long as the log (released when the log is deinitialised, never by a close).
public final class LogImage: @unchecked Sendable {
    /// Memory holding a segment's copy, and whether it is an anonymous mapping (else the allocator's).
    struct Owned {
        var buffer: UnsafeMutableRawBufferPointer
        var mapped: Bool
    }

    /// One segment's bytes, from byte 0 to its logical end.
    struct Piece {
        var firstSeq: UInt64
        var lastSeq: UInt64
        var base: UnsafeRawPointer
        var size: Int
    }

    /// The seq of the last record (0: the log is empty).
    public let headSeq: UInt64
    private let pieces: UnsafeMutableBufferPointer<Piece>
    /// Record `seq` starts at byte `starts[seq - 1]` of its segment.
    private let starts: UnsafeMutablePointer<UInt32>
    private let names: [String]
    private let owned: [Owned]
    /// The log it was read from, kept alive for its mappings.
    private let log: EventLog

    private init(
        log: EventLog, pieces: [Piece], owned: [Owned], segments: [Segment], headSeq: UInt64
    ) {
        let count = Int(pieces.last?.lastSeq ?? 0)
        let starts = UnsafeMutablePointer<UInt32>.allocate(capacity: max(count, 1))
        for segment in segments {
            let taken = min(segment.offsets.count, Int(headSeq - segment.firstSeq + 1))
            segment.offsets.withUnsafeBufferPointer { offsets in
                (starts + Int(segment.firstSeq - 1)).update(from: offsets.baseAddress!, count: taken)
            }
        }
        self.headSeq = UInt64(count)
        self.starts = starts
        self.pieces = .allocate(capacity: max(pieces.count, 1))
        _ = self.pieces.initialize(from: pieces)
        self.names = segments.map(\.name)
        self.owned = owned
        self.log = log
    }

    /// Maps or reads the segments of `segments` holding records `1...headSeq`; nil when those it must read hold
    /// more than `copyLimit` bytes.
    static func make(
        log: EventLog, segments all: [Segment], headSeq: UInt64, copyLimit: Int
    ) throws(LogError) -> LogImage? {
        let segments = all.filter { !$0.offsets.isEmpty && $0.firstSeq <= headSeq }
        let tailFirstSeq = all.last?.firstSeq
        var pieces: [Piece] = []
        var owned: [Owned] = []
        var copied = 0
        do throws(LogError) {
            for segment in segments {
                let size = Int(segment.size)
                let lastSeq = min(segment.lastSeq, headSeq)
                // Only a segment that is not the log's last is sealed, so mapped (see SegmentMaps).
                if segment.firstSeq != tailFirstSeq, let region = log.segmentMaps.region(of: segment, log.fileSystem),
                    region.count >= size
                {
                    pieces.append(
                        Piece(firstSeq: segment.firstSeq, lastSeq: lastSeq, base: region.baseAddress!, size: size))
                    continue
                }
                copied += size
                guard copied <= copyLimit else {
                    for buffer in owned { release(buffer) }
                    return nil
                }
                let copy = allocate(size)
                owned.append(copy)
                try read(log.fileSystem, segment, into: copy.buffer, count: size)
                pieces.append(
                    Piece(
                        firstSeq: segment.firstSeq, lastSeq: lastSeq, base: UnsafeRawPointer(copy.buffer.baseAddress!),
                        size: size))
            }
        } catch {
            for buffer in owned { release(buffer) }
            throw error
        }
        return LogImage(log: log, pieces: pieces, owned: owned, segments: segments, headSeq: headSeq)
    }

    deinit {
        for buffer in owned { Self.release(buffer) }
        starts.deallocate()
        pieces.deallocate()
    }

    /// Memory for a segment's copy: anonymous pages with huge pages advised, so that filling a copy of a hundred
    /// megabytes takes a few dozen page faults rather than tens of thousands.
    /// When no mapping is to be had, the allocator's memory.
    private static func allocate(_ size: Int) -> Owned {
        let bytes = max(size, 1)
        if let memory = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            memory != MAP_FAILED
        {
            _ = madvise(memory, bytes, 14)  // MADV_HUGEPAGE
            return Owned(buffer: UnsafeMutableRawBufferPointer(start: memory, count: bytes), mapped: true)
        }
        return Owned(buffer: .allocate(byteCount: bytes, alignment: 64), mapped: false)
    }

    /// Frees what ``allocate(_:)`` gave.
    private static func release(_ owned: Owned) {
        if owned.mapped {
            munmap(owned.buffer.baseAddress, owned.buffer.count)
        } else {
            owned.buffer.deallocate()
        }
    }

    /// Reads a segment's first `count` bytes, in reads of a few megabytes.
    private static func read(
        _ fileSystem: any FileSystem, _ segment: Segment, into buffer: UnsafeMutableRawBufferPointer, count: Int
    ) throws(LogError) {
        var done = 0
        while done < count {
            let want = min(8 << 20, count - done)
            let got: Int
            do {
                got = try fileSystem.readFully(
                    segment.fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done..<(done + want)]),
                    at: Int64(done))
            } catch {
                throw LogError.system(error, "reading segment \(segment.name)")
            }
            guard got == want else {
                throw LogError(
                    .damaged, "segment \(segment.name) ends at byte \(done + got), before its last record ends")
            }
            done += want
        }
    }

    /// The index of the piece holding record `seq` (1...headSeq).
    @inline(__always)
    private func piece(of seq: UInt64) -> Int {
        var low = 0
        var high = pieces.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if pieces[middle].firstSeq <= seq { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Record `seq` in place, valid as long as the image: its frame parsed and checked to hold record `seq` and
    /// to fill its slot exactly, and its checksum checked unless `checkCRC` is false (for a caller that checks
    /// the checksum of every record it uses itself, with ``LogRecordView/checksumMatches``).
    /// - Throws: ``LogError/Code/notFound`` outside `1...headSeq`, ``LogError/Code/damaged`` for a bad frame.
    @inline(__always)
    public func record(_ seq: UInt64, checkCRC: Bool = true) throws(LogError) -> LogRecordView {
        guard seq >= 1, seq <= headSeq else { throw LogError(.notFound, "the log has no record \(seq)") }
        let index = piece(of: seq)
        let piece = pieces[index]
        let start = Int(starts[Int(seq - 1)])
        let end = seq < piece.lastSeq ? Int(starts[Int(seq)]) : piece.size
        guard start < end, end <= piece.size,
            case .record(let view) = RecordCodec.parse(piece.base + start, available: end - start, checkCRC: checkCRC),
            view.seq == seq, view.frameSize == end - start
        else { throw damaged(index, seq: seq) }
        return view
    }

    /// Loads the first byte of record `seq`, so that its cache miss overlaps with other work (a hint: does
    /// nothing outside `1...headSeq`).
    @inline(__always)
    public func touch(_ seq: UInt64) -> UInt8 {
        guard seq >= 1, seq <= headSeq else { return 0 }
        let piece = pieces[piece(of: seq)]
        return piece.base.load(fromByteOffset: Int(starts[Int(seq - 1)]), as: UInt8.self)
    }

    /// Calls `body` with every record in seq order, each checked as by ``record(_:checkCRC:)``.
    public func forEachRecord(checkCRC: Bool = true, _ body: (LogRecordView) throws -> Void) throws {
        for index in 0..<pieces.count {
            let piece = pieces[index]
            guard piece.firstSeq <= piece.lastSeq else { continue }
            for seq in piece.firstSeq...piece.lastSeq {
                let start = Int(starts[Int(seq - 1)])
                let end = seq < piece.lastSeq ? Int(starts[Int(seq)]) : piece.size
                guard start < end, end <= piece.size,
                    case .record(let view) = RecordCodec.parse(
                        piece.base + start, available: end - start, checkCRC: checkCRC),
                    view.seq == seq, view.frameSize == end - start
                else { throw damaged(index, seq: seq) }
                try body(view)
            }
        }
    }

    /// The error for a damaged record `seq` (in `1...headSeq`), for a caller that found it so itself.
    public func damaged(seq: UInt64) -> LogError { damaged(piece(of: seq), seq: seq) }

    /// Record `seq` in segment `index` is not what its slot should hold.
    private func damaged(_ index: Int, seq: UInt64) -> LogError {
        LogError(
            .damaged, "segment \(names[index]) is damaged near record \(seq); run `ledger verify` for details")
    }
}

extension EventLog {
    /// An image of every record up to the head (see ``LogImage``), or nil when the segments it would have to
    /// read into memory (the last, and any the file system does not map) hold more than `copyLimit` bytes.
    public func image(copyLimit: Int = 512 << 20) throws(LogError) -> LogImage? {
        let (segments, head) = try lock.withLock { () throws(LogError) in
            guard !state.closed else { throw Self.closedError }
            return (state.segments, state.headSeq)
        }
        return try LogImage.make(log: self, segments: segments, headSeq: head, copyLimit: copyLimit)
    }
}
