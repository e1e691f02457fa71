import LedgerStore
import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Every record of a log up to its head when it was made, in memory, for reads in place in any order and from
/// several threads: the segments mapped read-only, except the last one while a writer elsewhere could still cut
/// it, and any the file system does not map: those are read once, in large sequential reads, into memory of their
/// own (see ``make(log:segments:headSeq:copyLimit:tail:)``).
///
/// Where each record starts is copied from the segments' offsets into one side array (4 bytes a record), so a read
/// costs no lock, no search of a segment's offsets and no reference counting. Every read parses the frame and
/// checks that it holds the record asked for and fills its slot exactly; its checksum is checked unless the
/// caller asks not to (see ``record(_:checkCRC:)``). A damaged record throws ``LogError/Code/damaged``.
///
/// `@unchecked Sendable`: nothing in it changes once made (its copies are filled before any thread but the one
/// scanning behind the reads is handed it); its mappings and copies are released only in `deinit`.
public final class LogImage: @unchecked Sendable {
    /// Memory it holds a segment in, and what kind of memory that is.
    struct Owned {
        enum Kind {
            /// A copy in anonymous pages (``allocate(_:)``).
            case anonymous
            /// A copy in the allocator's memory.
            case allocated
            /// The segment file mapped read-only (``FileSystem/mapReadOnly(_:count:)``).
            case file
        }

        var buffer: UnsafeMutableRawBufferPointer
        var kind: Kind
    }

    /// One segment's bytes, from byte 0 to its logical end.
    struct Piece {
        var firstSeq: UInt64
        var lastSeq: UInt64
        var base: UnsafeRawPointer
        var size: Int
        /// For a copy, where its bytes start in the order copies are read (see ``copied``); -1 when mapped.
        var copyStart: Int
    }

    /// A segment still to be read into its copy.
    struct Copy {
        var segment: Segment
        var buffer: UnsafeMutableRawBufferPointer
    }

    /// The seq of the last record (0: the log is empty).
    public let headSeq: UInt64
    private let pieces: UnsafeMutableBufferPointer<Piece>
    /// Record `seq` starts at byte `starts[seq - 1]` of its segment.
    private let starts: UnsafeMutablePointer<UInt32>
    private let names: [String]
    private let owned: [Owned]
    /// The log it was read from, kept alive for its mappings.
    let log: EventLog
    /// The copies to read, in order, while the image is being made.
    let copies: [Copy]
    /// How many bytes of the log it reads into memory of its own (the rest is mapped).
    public var copiedByteCount: Int { copies.reduce(0) { $0 + $1.buffer.count } }
    /// The bytes of the copies read so far, counted over them in order (published after each read).
    let copied = Atomic<Int>(0)
    /// Set when reading a copy failed, or when its reader should stop early.
    let stopped = Atomic<Bool>(false)

    private init(
        log: EventLog, pieces: [Piece], owned: [Owned], copies: [Copy], segments: [Segment], headSeq: UInt64
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
        self.copies = copies
        self.log = log
    }

    /// Maps the segments of `segments` holding records `1...headSeq`, and makes room for those it must read
    /// (``fill()`` reads them); nil when those hold more than `copyLimit` bytes.
    ///
    /// The sealed segments are mapped: nothing ever shrinks them (see SegmentMaps). The last one is mapped too
    /// when `tail` says how its bytes up to the head cannot be cut while mapped (see
    /// ``EventLog/tailStaysWhole()``) and its head record, checked in place, is still the one with `tail`'s
    /// chain hash; otherwise it is read into memory of its own. Each mapping is the image's alone and released
    /// with it, so that no page of the log stays resident in this process once the image is gone.
    static func make(
        log: EventLog, segments all: [Segment], headSeq: UInt64, copyLimit: Int, tail: (map: Bool, hash: [UInt8])
    ) throws(LogError) -> LogImage? {
        let segments = all.filter { !$0.offsets.isEmpty && $0.firstSeq <= headSeq }
        let tailFirstSeq = all.last?.firstSeq
        var pieces: [Piece] = []
        var owned: [Owned] = []
        var copies: [Copy] = []
        var copied = 0
        for segment in segments {
            let size = Int(segment.size)
            let lastSeq = min(segment.lastSeq, headSeq)
            let isTail = segment.firstSeq == tailFirstSeq
            if !isTail || tail.map, size > 0, let region = try? log.fileSystem.mapReadOnly(segment.fd, count: size) {
                if isTail, !endsWithHead(region, segment, headSeq: headSeq, hash: tail.hash) {
                    log.fileSystem.unmap(region)
                } else {
                    owned.append(Owned(buffer: UnsafeMutableRawBufferPointer(mutating: region), kind: .file))
                    pieces.append(
                        Piece(
                            firstSeq: segment.firstSeq, lastSeq: lastSeq, base: region.baseAddress!, size: size,
                            copyStart: -1))
                    continue
                }
            }
            guard copied + size <= copyLimit else {
                for buffer in owned { release(buffer, log.fileSystem) }
                return nil
            }
            let memory = allocate(size)
            owned.append(memory)
            copies.append(Copy(segment: segment, buffer: memory.buffer))
            pieces.append(
                Piece(
                    firstSeq: segment.firstSeq, lastSeq: lastSeq, base: UnsafeRawPointer(memory.buffer.baseAddress!),
                    size: size, copyStart: copied))
            copied += size
        }
        return LogImage(log: log, pieces: pieces, owned: owned, copies: copies, segments: segments, headSeq: headSeq)
    }

    /// Whether a mapped last segment ends with record `headSeq`, whole, checksum right, with chain hash `hash`:
    /// the bytes the log's head was found in are still there.
    private static func endsWithHead(
        _ region: UnsafeRawBufferPointer, _ segment: Segment, headSeq: UInt64, hash: [UInt8]
    ) -> Bool {
        guard segment.lastSeq == headSeq, let start = segment.offsets.last.map(Int.init), start < region.count,
            let view = RecordCodec.record(headSeq, filling: UnsafeRawBufferPointer(rebasing: region[start...]))
        else { return false }
        return view.hash.elementsEqual(hash)
    }

    deinit {
        for buffer in owned { Self.release(buffer, log.fileSystem) }
        starts.deallocate()
        pieces.deallocate()
    }

    /// The index of the piece holding record `seq` (1...headSeq).
    @inline(__always)
    private func piece(of seq: UInt64) -> Int {
        max(pieces.partitioningIndex { $0.firstSeq > seq } - 1, 0)
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
            let view = RecordCodec.record(
                seq, filling: UnsafeRawBufferPointer(start: piece.base + start, count: end - start), checkCRC: checkCRC)
        else { throw damaged(index, seq: seq) }
        return view
    }

    /// Starts loading every cache line of record `seq` (see ``prefetchCacheLines(_:)``), so that its cache misses
    /// overlap with other work. A hint: does nothing outside `1...headSeq`.
    public func prefetch(_ seq: UInt64) {
        guard seq >= 1, seq <= headSeq else { return }
        let piece = pieces[piece(of: seq)]
        let start = Int(starts[Int(seq - 1)])
        let end = seq < piece.lastSeq ? Int(starts[Int(seq)]) : piece.size
        guard start < end, end <= piece.size else { return }
        prefetchCacheLines(UnsafeRawBufferPointer(start: piece.base + start, count: end - start))
    }

    /// Calls `body` with every record in seq order, each checked as by ``record(_:checkCRC:)``; while the image
    /// is being made (see ``EventLog/image(copyLimit:whileReading:)``), right behind the reads of its copies.
    public func forEachRecord(checkCRC: Bool = true, _ body: (LogRecordView) throws -> Void) throws {
        try forEachRecord(in: 1..<(headSeq + 1), checkCRC: checkCRC, body)
    }

    /// ``forEachRecord(checkCRC:_:)`` over the records `seqs` only (clamped to `1...headSeq`). Several threads may
    /// each go through a range of their own once the copies are read (or when there are none).
    public func forEachRecord(in seqs: Range<UInt64>, checkCRC: Bool = true, _ body: (LogRecordView) throws -> Void)
        throws
    {
        let seqs = seqs.clamped(to: 1..<(headSeq + 1))
        guard !seqs.isEmpty else { return }
        var read = 0
        for index in piece(of: seqs.lowerBound)..<pieces.count {
            let piece = pieces[index]
            if piece.firstSeq >= seqs.upperBound { break }
            let first = max(piece.firstSeq, seqs.lowerBound)
            let last = min(piece.lastSeq, seqs.upperBound - 1)
            guard first <= last else { continue }
            for seq in first...last {
                let start = Int(starts[Int(seq - 1)])
                let end = seq < piece.lastSeq ? Int(starts[Int(seq)]) : piece.size
                if piece.copyStart >= 0, piece.copyStart + end > read { read = try wait(until: piece.copyStart + end) }
                guard start < end, end <= piece.size,
                    let view = RecordCodec.record(
                        seq, filling: UnsafeRawBufferPointer(start: piece.base + start, count: end - start),
                        checkCRC: checkCRC)
                else { throw damaged(index, seq: seq) }
                try body(view)
            }
        }
    }

    /// The error for a damaged record `seq` (in `1...headSeq`), for a caller that found it so itself.
    public func damaged(seq: UInt64) -> LogError { damaged(piece(of: seq), seq: seq) }

    /// Record `seq` in segment `index` is not what its slot should hold: damaged, or written by a newer format.
    private func damaged(_ index: Int, seq: UInt64) -> LogError {
        let piece = pieces[index]
        let start = Int(starts[Int(seq - 1)])
        var version: UInt8?
        if start < piece.size,
            case .newerVersion(let newer) = RecordCodec.parse(piece.base + start, available: piece.size - start)
        {
            version = newer
        }
        return .unreadable(segment: names[index], offset: Int64(start), seq: seq, newerVersion: version)
    }
}
