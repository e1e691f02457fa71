import LedgerStore
import LedgerSystem

/// Reading records out of the segment files: finding a record by seq, reading and checking one, scanning a range.
/// Needs no lock: the segments passed in are a snapshot, and their sealed bytes never change.
enum SegmentReader {
    /// Where record `seq` is: the segment index and offset.
    static func locate(_ segments: [Segment], seq: UInt64) -> (Int, Int64)? {
        guard let index = segmentIndex(segments, seq: seq) else { return nil }
        let segment = segments[index]
        return (index, Int64(segment.offsets[Int(seq - segment.firstSeq)]))
    }

    /// The index of the segment holding record `seq`, if any (a binary search over the segments' seq ranges).
    static func segmentIndex(_ segments: [Segment], seq: UInt64) -> Int? {
        var low = 0
        var high = segments.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let segment = segments[middle]
            if seq < segment.firstSeq {
                high = middle - 1
            } else if seq > segment.lastSeq {
                low = middle + 1
            } else {
                return middle
            }
        }
        return nil
    }

    /// Reads and checks one record.
    static func readRecord(_ fileSystem: any FileSystem, _ segments: [Segment], seq: UInt64) throws(LogError)
        -> LogRecord
    {
        guard seq > 0, let (index, offset) = locate(segments, seq: seq) else {
            throw LogError(.notFound, "the log has no record \(seq)")
        }
        let segment = segments[index]
        var want = Int(min(4096, segment.size - offset))
        while true {
            let bytes: [UInt8]
            do {
                bytes = try fileSystem.read(segment.fd, count: want, at: offset)
            } catch {
                throw LogError.system(error, "reading record \(seq) from \(segment.name)")
            }
            let result: Result<LogRecord, LogError>? = bytes.withUnsafeBytes { raw in
                switch RecordCodec.parse(raw.baseAddress!, available: raw.count) {
                case .record(let view) where view.seq == seq:
                    return .success(view.record(segment: segment.name, offset: offset))
                case .needBytes(let needed)
                where raw.count == want && needed > raw.count && Int64(needed) <= segment.size - offset:
                    // (A short read means the file ends early: it was cut under us, and is damaged below.)
                    want = needed
                    return nil
                case .newerVersion(let version):
                    return .failure(
                        .unreadable(segment: segment.name, offset: offset, seq: seq, newerVersion: version))
                default:
                    return .failure(.unreadable(segment: segment.name, offset: offset, seq: seq))
                }
            }
            if let result { return try result.get() }
        }
    }

    /// Scans records `from`…`through` of `segments`, stopping early when `body` returns false.
    static func scan(
        _ fileSystem: any FileSystem, _ segments: [Segment], from: UInt64, through: UInt64, checkCRC: Bool,
        _ body: (LogRecordView, String, Int64) -> Bool
    ) throws(LogError) {
        guard from <= through, let (first, _) = locate(segments, seq: from) else { return }
        var seq = from
        for index in first..<segments.count {
            let segment = segments[index]
            if segment.offsets.isEmpty || seq > segment.lastSeq { continue }
            let start = Int64(segment.offsets[Int(seq - segment.firstSeq)])
            var scanner = SegmentScanner(
                fileSystem: fileSystem, fd: segment.fd, fileSize: segment.size, bufferSize: 4 << 20)
            var stoppedByBody = false
            var mismatch = false
            let stop = try scanner.scan(from: start, checkCRC: checkCRC) { (view, offset) throws(LogError) in
                if seq > through { return false }
                guard view.seq == seq else {
                    mismatch = true
                    return false
                }
                guard body(view, segment.name, offset) else {
                    stoppedByBody = true
                    return false
                }
                seq += 1
                return true
            }
            if stoppedByBody || seq > through { return }
            if !mismatch, case .newerVersion(let offset, let version) = stop {
                throw .unreadable(segment: segment.name, offset: offset, seq: seq, newerVersion: version)
            }
            if mismatch || stop != .end {
                throw LogError(
                    .damaged,
                    "segment \(segment.name) is damaged near record \(seq); run `ledger verify` for details")
            }
        }
    }
}
