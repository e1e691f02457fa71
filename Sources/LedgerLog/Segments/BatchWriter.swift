import LedgerStore
import LedgerSystem

/// What the leader needs from the state to write a batch without holding the lock.
///
/// It holds no offsets arrays, so that appending to them afterwards never copies them.
struct WriteContext {
    /// The last segment (name, descriptor, logical end, whether it holds records).
    var last: (name: String, fd: FileDescriptor, size: Int64, hasRecords: Bool)?
    /// How many segments there are.
    var segmentCount: Int
    /// The segment holding a failed batch that could not be cut yet, and its size before that batch.
    var dirty: (name: String, fd: FileDescriptor, size: Int64)?
    var headHash: [UInt8]
    var environment: String
    var metaWritten: Bool
    /// The app identity to bind with `meta` when it is not written yet.
    var identity: AppIdentity?
    var dirtyTail: (segment: Int, size: Int64)?
    /// Whether evidence stored without a sync must be made durable (the pack synced) before the records.
    var syncEvidenceFirst = false
}

/// Writes the group commit's batches into the segments: the append leader's file work, without the lock.
struct BatchWriter {
    let fileSystem: any FileSystem
    let directory: DataDirectory
    /// A segment is rolled once it holds at least this many bytes (``LogOptions/segmentSize``).
    let segmentSize: Int
    /// The evidence packs, synced first when a batch's evidence was stored without a sync.
    let evidencePacks: EvidenceStore

    /// Writes a planned batch: binds the directory on its first write, rolls the segment when full, writes every
    /// frame with one write and makes it durable with one `fdatasync`. On failure the batch's bytes are cut off
    /// again, so nothing partial stays; when even that fails, the returned dirty tail makes the next batch cut
    /// first. Runs on the leader, without the lock.
    ///
    /// When the batch's evidence is to be made durable too (``WriteContext/syncEvidenceFirst``), a batch of at
    /// most ``maxOverlappedRecords`` records has the evidence packs synced on a helper thread while its records
    /// are written and synced (``EvidenceSync``), and succeeds only once both are durable; should the evidence
    /// sync fail, the records are cut off again like a failed write. A larger batch syncs the evidence first.
    func write(_ plan: BatchPlan, _ context: WriteContext, _ buffer: FrameBuffer)
        -> (Result<BatchWrite, LogError>, newSegment: Segment?, dirtyTail: (segment: Int, size: Int64)?)
    {
        guard let first = plan.records.first else { return (.success(BatchWrite()), nil, context.dirtyTail) }
        var dirty = context.dirtyTail
        var newSegment: Segment?
        var evidenceSync: EvidenceSync?
        // Every way out waits for the helper: the evidence store is never synced behind the next batch's back.
        defer { evidenceSync?.wait() }
        do throws(LogError) {
            if !context.metaWritten { try bind(environment: context.environment, identity: context.identity) }
            if context.syncEvidenceFirst {
                if plan.records.count <= Self.maxOverlappedRecords { evidenceSync = EvidenceSync.start(evidencePacks) }
                if evidenceSync == nil {
                    do {
                        try evidencePacks.sync()
                    } catch {
                        throw Self.evidenceFailure(error, directory)
                    }
                }
            }
            if let tail = context.dirty {
                do {
                    try fileSystem.ftruncate(tail.fd, size: tail.size)
                    try fileSystem.fdatasync(tail.fd)
                } catch {
                    throw LogError.system(error, "cutting a failed write off \(tail.name)")
                }
                dirty = nil
            }
            let segment: (name: String, fd: FileDescriptor, size: Int64)
            if let last = context.last, last.size < Int64(segmentSize) || !last.hasRecords {
                segment = (last.name, last.fd, last.size)
            } else {
                let created = try createSegment(
                    firstSeq: first.seq, previousHash: context.headHash, context.environment)
                newSegment = created
                segment = (created.name, created.fd, created.size)
            }
            // Size every frame, then encode the batch in place into one block; then one fdatasync. A batch of
            // more than two chunks is filled (and checksummed up to each frame's hash) here while a helper thread
            // hashes the chain behind the filling; each sealed megabyte then goes to the file from here. A smaller
            // batch is sealed and written here alone. On failure, cut the partial batch off again.
            let count = plan.records.count
            var offsets: [UInt32] = []
            offsets.reserveCapacity(count + 1)
            var ends: [Int] = []
            ends.reserveCapacity(count)
            var total = 0
            plan.forEachEntry { _, entry in
                offsets.append(UInt32(segment.size + Int64(total)))
                total += RecordCodec.frameSize(entry)
                ends.append(total)
                return true
            }
            let base = buffer.prepare(total)
            var subjectHashes: [UInt64] = []
            subjectHashes.reserveCapacity(count * 2)
            var flushed = 0
            var submitted = 0
            var start = 0
            var failure: SystemError?
            let writer =
                total > 2 * Self.writeChunk
                ? SealingWriter(
                    fileSystem, segment.fd, base, at: segment.size, frameEnds: ends, previousHash: context.headHash,
                    chunk: Self.writeChunk)
                : nil
            plan.records.withUnsafeBufferPointer { records in
                plan.forEachEntry { position, entry in
                    let record = records[position]
                    let end = ends[position]
                    let frame = base + start
                    if let writer {
                        RecordCodec.fill(
                            entry, seq: record.seq, recordedAt: record.recordedAt, size: end - start, at: frame
                        ) { subjectHashes.append(StableHash.hash($0)) }
                        RecordCodec.checksumBody(size: end - start, at: frame)
                        start = end
                        if end - submitted >= Self.sealStep || position + 1 == count {
                            writer.submit(frames: position + 1)
                            submitted = end
                        }
                        return true
                    }
                    if position == 0 {
                        context.headHash.withUnsafeBytes { previous in
                            RecordCodec.encode(
                                entry, seq: record.seq, recordedAt: record.recordedAt, previousHash: previous,
                                size: end - start, at: frame
                            ) { subjectHashes.append(StableHash.hash($0)) }
                        }
                    } else {
                        RecordCodec.encode(
                            entry, seq: record.seq, recordedAt: record.recordedAt,
                            previousHash: UnsafeRawBufferPointer(start: frame - LogFormat.hashSize, count: 32),
                            size: end - start, at: frame
                        ) { subjectHashes.append(StableHash.hash($0)) }
                    }
                    start = end
                    if end - flushed >= Self.writeChunk {
                        do throws(SystemError) {
                            try flush(segment.fd, base, flushed..<end, at: segment.size)
                        } catch {
                            failure = error
                            return false
                        }
                        flushed = end
                    }
                    return true
                }
            }
            do throws(SystemError) {
                if let writer {
                    try writer.finish()
                } else {
                    if let failure { throw failure }
                    try flush(segment.fd, base, flushed..<total, at: segment.size)
                }
                try fileSystem.fdatasync(segment.fd)
            } catch {
                let segmentIndex = context.segmentCount - (newSegment == nil ? 1 : 0)
                do {
                    try fileSystem.ftruncate(segment.fd, size: segment.size)
                } catch {
                    dirty = (segmentIndex, segment.size)
                }
                throw LogError.system(error, "appending \(count) records to \(segment.name)")
            }
            if let failure = evidenceSync?.wait() {
                // The records are durable but their evidence may not be: cut them off again (and make the cut
                // durable), or have the next batch cut them first. Should the process die before either, the
                // writer's open cuts them (records of the last batch whose evidence is missing).
                let segmentIndex = context.segmentCount - (newSegment == nil ? 1 : 0)
                do {
                    try fileSystem.ftruncate(segment.fd, size: segment.size)
                    try fileSystem.fdatasync(segment.fd)
                } catch {
                    dirty = (segmentIndex, segment.size)
                }
                throw Self.evidenceFailure(failure, directory)
            }
            let lastHash = Array(UnsafeRawBufferPointer(start: base + total - LogFormat.hashSize, count: 32))
            let written = BatchWrite(
                offsets: offsets, end: segment.size + Int64(total), lastHash: lastHash, subjectHashes: subjectHashes)
            return (.success(written), newSegment, dirty)
        } catch {
            return (.failure(error), newSegment, dirty)
        }
    }

    /// The most records a batch may write while its evidence is still being synced (``write(_:_:_:)``): a crash
    /// then leaves at most this many records at the log's end whose evidence may be missing, and the writer's open
    /// looks for such records among this many last records only (`Events/README.md`, "Recovery on open").
    static let maxOverlappedRecords = 4096

    /// The error of a batch whose evidence could not be made durable.
    private static func evidenceFailure(_ error: SystemError, _ directory: DataDirectory) -> LogError {
        LogError.system(error, "making the batch's evidence durable in \(directory.evidence)")
    }

    /// How many encoded bytes are handed to the file at a time within a batch.
    static let writeChunk = 1 << 20
    /// How many filled bytes the leader hands to the sealing thread at a time.
    static let sealStep = 64 << 10

    /// Writes the encoded bytes `range` of the batch at `base` + their position, and starts their writeback.
    private func flush(_ fd: FileDescriptor, _ buffer: UnsafeMutableRawPointer, _ range: Range<Int>, at base: Int64)
        throws(SystemError)
    {
        try fileSystem.writeAll(
            fd, UnsafeRawBufferPointer(start: buffer + range.lowerBound, count: range.count),
            at: base + Int64(range.lowerBound))
        fileSystem.startWriteback(fd, offset: base + Int64(range.lowerBound), count: range.count)
    }

    /// Binds the data directory to its environment and app: writes `meta` durably, once, and again when it lacks
    /// the identity this writer names (a directory bound before identities were recorded).
    private func bind(environment: String, identity: AppIdentity?) throws(LogError) {
        guard environment.utf8.count <= LogFormat.maxEnvironmentLength, !environment.isEmpty,
            !environment.contains("\n")
        else {
            throw LogError(.invalidEntry, "an environment name is 1 to 63 bytes on one line (got \(environment))")
        }
        let existing = try Meta.read(fileSystem, directory)
        if let existing, identity == nil || existing.identity == identity { return }
        let meta = Meta(
            version: existing?.version ?? LogFormat.version, environment: existing?.environment ?? environment,
            identity: identity ?? existing?.identity)
        do {
            try fileSystem.createDirectories(directory.log)
            try fileSystem.writeFileDurably(directory.meta, meta.encoded())
        } catch {
            throw LogError.system(error, "binding \(directory.root) to \(environment)")
        }
    }

    /// Creates a segment file with its header, durably (file and directory fsynced).
    private func createSegment(firstSeq: UInt64, previousHash: [UInt8], _ environment: String) throws(LogError)
        -> Segment
    {
        let name = LogFormat.segmentName(firstSeq: firstSeq)
        let path = directory.segment(name)
        let header = SegmentHeader(
            version: LogFormat.version, firstSeq: firstSeq, previousHash: previousHash, environment: environment)
        do throws(SystemError) {
            try fileSystem.createDirectories(directory.log)
            let fd = try fileSystem.open(path, OpenOptions(access: .readWrite, create: true, truncate: true))
            do throws(SystemError) {
                try fileSystem.writeAll(fd, header.encoded(), at: 0)
                try fileSystem.fsync(fd)
                try fileSystem.fsyncDirectory(directory.log)
            } catch {
                try? fileSystem.close(fd)
                try? fileSystem.unlink(path)
                throw error
            }
            return Segment(
                name: name, firstSeq: firstSeq, fd: fd, size: Int64(LogFormat.segmentHeaderSize), offsets: [])
        } catch {
            throw LogError.system(error, "creating segment \(name)")
        }
    }
}
