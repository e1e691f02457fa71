import LedgerStore
import LedgerSystem

/// A walk over every segment of a data directory: checks each segment header and record (checksum, seq, time
/// order, and the chain hash from a chosen seq on), records where each record is, and stops at the first problem.
///
/// Damage is at the *tail* only when it is in the last segment and no valid record with a later seq starts
/// anywhere after it; anything else is damage in the middle of the log and is never guessed at.
struct LogWalk {
    var segments: [Segment] = []
    var headSeq: UInt64 = 0
    var headHash: [UInt8]
    var headTime: Int64 = 0
    var environment: String?
    var problem: LogProblem?
    /// Where a torn tail starts (segment index and offset), when ``problem`` is a torn tail.
    var tail: (segment: Int, offset: Int64)?
    /// The size of that segment file when the walk read it (a live writer may have grown it since).
    var tailFileSize: Int64 = 0

    init(environment: String?) {
        self.environment = environment
        self.headHash = environment.map { LogFormat.genesis(environment: $0) } ?? []
    }

    /// Closes every descriptor the walk opened.
    func closeAll(_ fileSystem: any FileSystem) {
        for segment in segments { try? fileSystem.close(segment.fd) }
    }

    /// Walks the log of `directory`.
    /// - Parameters:
    ///   - environment: the environment from `meta` (nil: take it from the first segment header).
    ///   - writable: open the segments for writing too.
    ///   - chainFrom: recompute chain hashes for records with at least this seq.
    ///   - trusted: where the records of a checkpoint are (see ``RecordPositions``): the segments it lists are
    ///     taken from it, each checked only at its last record, and only what follows is walked. Should anything
    ///     not match, or the walk find a problem, the log is walked again without it. `onRecord` is not called for
    ///     the records taken from it.
    ///   - onRecord: called for each valid record walked, in order.
    static func run(
        _ fileSystem: any FileSystem, _ directory: DataDirectory, environment: String?, writable: Bool,
        chainFrom: UInt64, trusting trusted: RecordPositions? = nil,
        onRecord: (LogRecordView) -> Void = { _ in }
    ) throws(LogError) -> LogWalk {
        if let trusted {
            let walk = try run(
                fileSystem, directory, environment: environment, writable: writable, chainFrom: chainFrom,
                trusted: trusted, onRecord: onRecord)
            if let walk, walk.problem == nil { return walk }
            walk?.closeAll(fileSystem)
        }
        // Without a checkpoint there is nothing to mismatch: never nil.
        return try run(
            fileSystem, directory, environment: environment, writable: writable, chainFrom: chainFrom, trusted: nil,
            onRecord: onRecord)!
    }

    /// ``run(_:_:environment:writable:chainFrom:trusting:onRecord:)`` with or without a checkpoint; nil when the
    /// checkpoint does not match the segments (their descriptors closed).
    private static func run(
        _ fileSystem: any FileSystem, _ directory: DataDirectory, environment: String?, writable: Bool,
        chainFrom: UInt64, trusted: RecordPositions?, onRecord: (LogRecordView) -> Void
    ) throws(LogError) -> LogWalk? {
        var walk = LogWalk(environment: environment)
        let names = try directory.segmentNames(fileSystem)
        do throws(LogError) {
            for (index, name) in names.enumerated() {
                let isLast = index == names.count - 1
                let fd: FileDescriptor
                do {
                    fd = try fileSystem.open(directory.segment(name), writable ? .readWrite : .read)
                } catch {
                    throw LogError.system(error, "opening segment \(name)")
                }
                let size: Int64
                do {
                    size = try fileSystem.fstat(fd).size
                } catch {
                    try? fileSystem.close(fd)
                    throw LogError.system(error, "reading segment \(name)")
                }
                var segment = Segment(
                    name: name, firstSeq: LogFormat.firstSeq(segmentName: name) ?? 0, fd: fd,
                    size: Int64(LogFormat.segmentHeaderSize), offsets: [])
                walk.segments.append(segment)
                guard try walk.checkHeader(fileSystem, &segment, fileSize: size, isLast: isLast, index: index) else {
                    walk.segments[index] = segment
                    return walk
                }
                var from = Int64(LogFormat.segmentHeaderSize)
                if let trusted, index < trusted.entries.count {
                    let entry = trusted.entries[index]
                    guard try walk.take(entry, fileSystem, &segment, fileSize: size) else {
                        walk.segments[index] = segment
                        walk.closeAll(fileSystem)
                        return nil
                    }
                    from = entry.size
                }
                let stop = try walk.scanRecords(
                    fileSystem, &segment, from: from, fileSize: size, chainFrom: chainFrom, onRecord)
                walk.segments[index] = segment
                if let stop {
                    try walk.classify(stop, fileSystem, segment, fileSize: size, isLast: isLast, index: index)
                    return walk
                }
            }
        } catch {
            walk.closeAll(fileSystem)
            throw error
        }
        return walk
    }

    /// Reads and checks a segment header; false when a problem was recorded.
    private mutating func checkHeader(
        _ fileSystem: any FileSystem, _ segment: inout Segment, fileSize: Int64, isLast: Bool, index: Int
    ) throws(LogError) -> Bool {
        let bytes: [UInt8]
        do {
            bytes = try fileSystem.read(segment.fd, count: LogFormat.segmentHeaderSize, at: 0)
        } catch {
            throw LogError.system(error, "reading segment \(segment.name)")
        }
        let name = segment.name
        let expected = headSeq + 1
        switch bytes.withUnsafeBytes({ SegmentHeader.decode($0) }) {
        case .failure(let box):
            if case .newerVersion(let version) = box.problem {
                problem = LogProblem(
                    kind: .newerVersion, segment: name, offset: 0, seq: expected,
                    message: "segment \(name) was written by log format \(version); upgrade the ledger")
                return false
            }
            var torn = false
            if isLast {
                torn = try !SegmentScanner.validRecordExists(
                    fileSystem: fileSystem, fd: segment.fd, fileSize: fileSize, after: -1, minSeq: expected)
            }
            let reason: String
            if case .damaged(let text) = box.problem { reason = text } else { reason = "the header is incomplete" }
            segment.size = 0
            if torn {
                tail = (index, 0)
                tailFileSize = fileSize
                problem = LogProblem(
                    kind: .tornTail, segment: name, offset: 0, seq: expected,
                    message: "segment \(name) was torn while being created (\(reason)) and holds no record; "
                        + "`ledger repair` moves it aside")
            } else {
                problem = LogProblem(
                    kind: .damagedSegmentHeader, segment: name, offset: 0, seq: segment.firstSeq,
                    message: "segment \(name) is damaged at byte 0: \(reason). Its records from seq "
                        + "\(segment.firstSeq) on cannot be trusted; restore the segment from a backup")
            }
            return false
        case .success(let header):
            var trouble: (LogProblem.Kind, String)?
            if header.firstSeq != segment.firstSeq || header.firstSeq != expected {
                trouble = (
                    .sequenceGap,
                    "segment \(name) starts at seq \(header.firstSeq) but seq \(expected) was expected "
                        + "(a segment file is missing or misnamed); restore it from a backup"
                )
            } else if let environment, header.environment != environment {
                trouble = (
                    .damagedSegmentHeader,
                    "segment \(name) belongs to environment \(header.environment), not \(environment)"
                )
            } else if !headHash.isEmpty && header.previousHash != headHash {
                trouble = (
                    .chainBroken,
                    "segment \(name)'s header does not continue the hash chain of the segment before it; "
                        + "history was rewritten. Restore from a backup"
                )
            }
            if let (kind, message) = trouble {
                problem = LogProblem(kind: kind, segment: name, offset: 0, seq: expected, message: message)
                return false
            }
            if environment == nil {
                environment = header.environment
                headHash = header.previousHash
            }
            return true
        }
    }

    /// Takes a segment's records from a checkpoint's `entry` once its last record, read in place, is whole (frame,
    /// checksum, seq), in time order, and has the chain hash the entry lists; false when it does not match.
    private mutating func take(
        _ entry: RecordPositions.Entry, _ fileSystem: any FileSystem, _ segment: inout Segment, fileSize: Int64
    ) throws(LogError) -> Bool {
        let last = Int64(entry.offsets[entry.offsets.count - 1])
        guard entry.firstSeq == segment.firstSeq, entry.firstSeq == headSeq + 1, entry.size <= fileSize,
            entry.size - last <= Int64(LogFormat.frameHeaderSize + LogFormat.maxBodySize)
        else { return false }
        let frame: [UInt8]
        do {
            frame = try fileSystem.read(segment.fd, count: Int(entry.size - last), at: last)
        } catch {
            throw LogError.system(error, "reading segment \(segment.name)")
        }
        let matches = frame.withUnsafeBytes { raw -> Bool in
            guard let view = RecordCodec.record(entry.lastSeq, filling: raw), view.recordedAt >= headTime,
                view.hash.elementsEqual(entry.lastHash)
            else { return false }
            headSeq = view.seq
            headTime = view.recordedAt
            headHash = Array(view.hash)
            return true
        }
        guard matches else { return false }
        segment.offsets = entry.offsets
        segment.size = entry.size
        return true
    }

    /// Scans a segment's records from byte `from` on; returns why it stopped early, or nil at a clean end.
    private mutating func scanRecords(
        _ fileSystem: any FileSystem, _ segment: inout Segment, from: Int64, fileSize: Int64, chainFrom: UInt64,
        _ onRecord: (LogRecordView) -> Void
    ) throws(LogError) -> SegmentScanner.Stop? {
        var scanner = SegmentScanner(fileSystem: fileSystem, fd: segment.fd, fileSize: fileSize)
        var offsets = segment.offsets
        let name = segment.name
        var found: LogProblem?
        var end = from
        let stop = try scanner.scan(from: from) { (view, offset) throws(LogError) in
            let seq = view.seq
            let expected = headSeq + 1
            if seq != expected {
                found = LogProblem(
                    kind: .sequenceGap, segment: name, offset: offset, seq: expected,
                    message: "segment \(name) byte \(offset): record seq \(seq) where \(expected) was expected; "
                        + "the log was altered. Restore from a backup")
                return false
            }
            if view.recordedAt < headTime {
                found = LogProblem(
                    kind: .timeOrder, segment: name, offset: offset, seq: seq,
                    message: "segment \(name) byte \(offset): record \(seq) is timed before record \(seq - 1); "
                        + "the log was altered. Restore from a backup")
                return false
            }
            let storedHash = view.hash
            if seq >= chainFrom {
                let computed = RecordCodec.chainHash(previous: headHash, body: view.hashedBody)
                if !computed.elementsEqual(storedHash) {
                    found = LogProblem(
                        kind: .chainBroken, segment: name, offset: offset, seq: seq,
                        message: "segment \(name) byte \(offset): record \(seq) does not match its chain hash; "
                            + "it was rewritten after it was appended. Restore from a backup")
                    return false
                }
            }
            // In place: a new array per record would cost an allocation and a free each.
            if headHash.count == storedHash.count {
                headHash.withUnsafeMutableBytes { $0.copyMemory(from: storedHash) }
            } else {
                headHash = Array(storedHash)
            }
            headSeq = seq
            headTime = view.recordedAt
            offsets.append(UInt32(offset))
            end = offset + Int64(view.frameSize)
            onRecord(view)
            return true
        }
        segment.offsets = offsets
        segment.size = end  // the logical end: after the last valid record
        if let found {
            problem = found
            return .requested(offset: found.offset ?? 0)
        }
        return stop == .end ? nil : stop
    }

    /// Turns an early stop into a problem: a torn tail, or damage in the middle.
    private mutating func classify(
        _ stop: SegmentScanner.Stop, _ fileSystem: any FileSystem, _ segment: Segment, fileSize: Int64,
        isLast: Bool, index: Int
    ) throws(LogError) {
        let name = segment.name
        let expected = headSeq + 1
        switch stop {
        case .end, .requested:
            return  // the problem, if any, is already recorded
        case .newerVersion(let offset, let version):
            problem = LogProblem(
                kind: .newerVersion, segment: name, offset: offset, seq: expected,
                message: "segment \(name) byte \(offset): record \(expected) was written by log format \(version); "
                    + "upgrade the ledger")
        case .incomplete(let offset), .damaged(let offset, _):
            var reason = "the record is incomplete"
            if case .damaged(_, let text) = stop { reason = text }
            let laterRecords = try SegmentScanner.validRecordExists(
                fileSystem: fileSystem, fd: segment.fd, fileSize: fileSize, after: offset, minSeq: expected)
            if isLast && !laterRecords {
                tail = (index, offset)
                tailFileSize = fileSize
                problem = LogProblem(
                    kind: .tornTail, segment: name, offset: offset, seq: expected,
                    message: "segment \(name) has a torn tail at byte \(offset) (record \(expected): \(reason)); "
                        + "\(fileSize - offset) bytes after the last valid record \(headSeq). Opening for write or "
                        + "`ledger repair` cuts them and keeps them in lost+found")
            } else {
                problem = LogProblem(
                    kind: .damagedRecord, segment: name, offset: offset, seq: expected,
                    message: "segment \(name) is damaged at byte \(offset): record \(expected) (\(reason)), and "
                        + "valid records follow it. This is not a torn tail; nothing was cut. Restore the segment "
                        + "from a backup")
            }
        }
    }
}
