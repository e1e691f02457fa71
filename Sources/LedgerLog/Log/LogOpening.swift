import LedgerStore
import LedgerSystem

/// What opening a data directory finds, before the log is built on it: `meta` checked against the environment
/// and app asked for, every segment walked (a reader: what follows the positions checkpoint), a torn tail cut
/// (the writer; a reader leaves it), and, for the writer, the indexes from the index files and the walk.
struct LogOpening {
    /// The log's state as found.
    var state: LogState
    /// What the writer cut, if anything.
    var recovery: RecoveryReport?
    /// Records the index files covered that the log no longer holds.
    var lost: LostRecords?
    /// The writer's indexes (their groups placed in the segments), when the index files' coverage holds for this
    /// log; nil: they must be rebuilt (and a reader's are loaded on first use).
    var indexes: LogIndexes?

    /// Reads the directory at `layout` for a writer (`writable`) or a reader.
    static func read(
        _ layout: DataDirectory, environment: String?, app: AppIdentity?, writable: Bool, options: LogOptions,
        fileSystem: any FileSystem
    ) throws(LogError) -> LogOpening {
        let meta = try Meta.read(fileSystem, layout)
        if let meta, let environment, meta.environment != environment {
            throw LogOpening.environmentMismatch(layout, bound: meta.environment, wanted: environment)
        }
        if let app {
            guard !app.bundleId.isEmpty, app.bundleId.utf8.count <= 255, !app.bundleId.contains("\n"),
                !app.bundleId.contains(" ")
            else {
                throw LogError(.invalidEntry, "a bundle id is 1 to 255 bytes without spaces (got \(app.bundleId))")
            }
            if let bound = meta?.identity, let refusal = bound.refusal(of: app, at: layout.root) { throw refusal }
        }
        // What `meta` holds, or what this writer binds at its first write (an identity an older `meta` lacks).
        let bound = meta?.identity
        var binding: AppIdentity?
        if let app {
            if let bound { binding = bound.adding(app) } else { binding = app }
        }
        // The writer needs its indexes at once (duplicates); a reader builds them on first use.
        var keyIndex = KeyIndex()
        var subjectIndex = SubjectIndex()
        var covered: UInt64 = 0
        var persistedHash: [UInt8]?
        if writable {
            if let persisted = IndexFiles(fileSystem, layout).load() {
                (keyIndex, subjectIndex, covered, persistedHash) = persisted
            } else {
                let estimate = try estimateRecords(fileSystem, layout)
                keyIndex = KeyIndex(table: HashTable64(capacity: estimate))
                subjectIndex = SubjectIndex(heads: HashTable64(capacity: estimate / 2))
            }
        }
        var coveredHash: [UInt8]?
        let chainFrom = options.verifyChainOnOpen ? 1 : (writable ? covered + 1 : UInt64.max)
        // A reader takes the records the positions file lists from it; the writer walks every record (it must
        // refuse damage anywhere before the tail, and index what the index files do not cover).
        let trusted = writable || options.verifyChainOnOpen ? nil : IndexFiles(fileSystem, layout).positions()
        let walk = try LogWalk.run(
            fileSystem, layout, environment: meta?.environment, writable: writable, chainFrom: chainFrom,
            trusting: trusted
        ) { view in
            guard writable else { return }
            let seq = view.seq
            if seq == covered { coveredHash = Array(view.hash) }
            if seq > covered { LogIndexes.add(view, keys: &keyIndex, subjects: &subjectIndex) }
        }
        if meta == nil, let environment, let bound = walk.environment, bound != environment {
            walk.closeAll(fileSystem)
            throw LogOpening.environmentMismatch(layout, bound: bound, wanted: environment)
        }
        var segments = walk.segments
        var recovery: RecoveryReport?
        if let problem = walk.problem {
            if problem.isTail, let tail = walk.tail {
                if writable {
                    do {
                        recovery = try cutTail(fileSystem, layout, &segments, at: tail, headSeq: walk.headSeq)
                    } catch {
                        for segment in segments { try? fileSystem.close(segment.fd) }
                        throw error
                    }
                } else if tail.offset == 0 {
                    // A reader leaves a torn new segment alone but does not use it.
                    let torn = segments.removeLast()
                    try? fileSystem.close(torn.fd)
                }
            } else {
                walk.closeAll(fileSystem)
                let code: LogError.Code = problem.kind == .newerVersion ? .unsupportedVersion : .damaged
                throw LogError(code, problem.message)
            }
        }
        var state = LogState(
            environment: meta?.environment ?? walk.environment ?? environment,
            metaWritten: meta != nil && binding == nil, identity: binding ?? bound)
        state.segments = segments
        state.head.seq = walk.headSeq
        state.head.time = walk.headTime
        state.head.hash =
            walk.headHash.isEmpty
            ? (state.binding.environment.map { LogFormat.genesis(environment: $0) } ?? []) : walk.headHash
        let coverageHolds =
            covered == 0 || (covered <= walk.headSeq && coveredHash != nil && coveredHash == persistedHash)
        // Index files written for records the log no longer holds: acknowledged records are gone. Reported, and
        // the files rewritten below for the log as it is (a torn last record is cut all the same).
        let lost =
            covered > walk.headSeq
            ? persistedHash.map { LostRecords(coveredSeq: covered, coveredHash: $0, headSeq: walk.headSeq) } : nil
        guard writable, coverageHolds else { return LogOpening(state: state, recovery: recovery, lost: lost) }
        subjectIndex.placeGroups(segments)
        return LogOpening(
            state: state, recovery: recovery, lost: lost,
            indexes: LogIndexes(keys: keyIndex, subjects: subjectIndex, coveredSeq: covered))
    }

    /// About how many records the log holds (one per 256 bytes), to size tables up front instead of doubling.
    static func estimateRecords(_ fileSystem: any FileSystem, _ layout: DataDirectory) throws(LogError) -> Int {
        var bytes: Int64 = 0
        for name in try layout.segmentNames(fileSystem) {
            bytes += (try? fileSystem.stat(layout.segment(name)))??.size ?? 0
        }
        return Int(min(bytes / 256, 1 << 28))
    }

    static func environmentMismatch(_ layout: DataDirectory, bound: String, wanted: String) -> LogError {
        LogError(
            .environmentMismatch,
            "\(layout.root) holds the \(bound) environment's records; it cannot take \(wanted) records. "
                + "Use another data directory for \(wanted)")
    }

    /// Cuts a torn tail: the bytes are copied to lost+found (fsynced) before the segment is truncated and fsynced.
    static func cutTail(
        _ fileSystem: any FileSystem, _ layout: DataDirectory, _ segments: inout [Segment],
        at tail: (segment: Int, offset: Int64), headSeq: UInt64
    ) throws(LogError) -> RecoveryReport {
        let segment = segments[tail.segment]
        let stamp = SystemClock.wallMilliseconds()
        do {
            try fileSystem.createDirectories(layout.lostAndFound)
            let fileSize = try fileSystem.fstat(segment.fd).size
            if tail.offset == 0 {
                // A segment torn while being created: move the whole file aside.
                let saved = Path.join(layout.lostAndFound, "\(segment.name).\(stamp)")
                try fileSystem.close(segment.fd)
                segments.removeLast()
                try fileSystem.rename(layout.segment(segment.name), to: saved)
                try fileSystem.fsyncDirectory(layout.lostAndFound)
                try fileSystem.fsyncDirectory(layout.log)
                return RecoveryReport(
                    segment: segment.name, offset: 0, bytesCut: fileSize, savedAs: saved, headSeq: headSeq)
            }
            let cut = try fileSystem.read(segment.fd, count: Int(fileSize - tail.offset), at: tail.offset)
            let saved = Path.join(layout.lostAndFound, "\(segment.name).\(tail.offset).\(stamp).tail")
            try fileSystem.writeFileDurably(saved, cut)
            try fileSystem.ftruncate(segment.fd, size: tail.offset)
            try fileSystem.fsync(segment.fd)
            segments[tail.segment].size = tail.offset
            return RecoveryReport(
                segment: segment.name, offset: tail.offset, bytesCut: fileSize - tail.offset, savedAs: saved,
                headSeq: headSeq)
        } catch {
            throw LogError.system(error, "cutting the torn tail of \(segment.name)")
        }
    }
}
