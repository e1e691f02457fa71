import LedgerStore
import LedgerSystem

/// The append-only, checksummed, hash-chained log of one data directory.
///
/// Open it as the one writer (``openWriter(at:environment:app:options:fileSystem:clock:)``, which takes the
/// directory's lock and recovers from a crash) or as a reader (``openReader(at:fileSystem:)``, no lock).
/// Appends from many threads are group-committed: one write and one `fdatasync` per batch, and
/// ``append(_:)`` returns only once its records are durable. The on-disk format is documented in
/// `Events/README.md`.
///
/// Call ``close()`` once, after every other call on this log has returned.
public final class EventLog: @unchecked Sendable {
    // Sendable: every mutable field lives in `state`, read and written only while holding `lock`.
    let directory: DataDirectory
    let fileSystem: any FileSystem
    let options: LogOptions
    let clock: @Sendable () -> Int64
    let writerLock: WriterLock?
    let lock = ConditionLock()
    var state: LogState
    /// The evidence packs (thread-safe on their own).
    let evidencePacks: EvidenceStore
    /// Read-only mappings of the sealed segments (thread-safe on their own; released in `deinit`).
    let segmentMaps = SegmentMaps()
    /// The append leader's file work.
    let batchWriter: BatchWriter
    /// The index files under `index/`.
    var indexFiles: IndexFiles { IndexFiles(fileSystem, directory) }
    /// The cluster files under `index/`.
    var clusterFiles: ClusterFiles { ClusterFiles(fileSystem: fileSystem, indexDirectory: directory.index) }

    /// What opening for write found and cut, if anything.
    public let recovery: RecoveryReport?

    /// Records the index files covered that opening for write found gone (see ``LostRecords``); the writer then
    /// rewrote the index files for the log as it is, so this is reported once.
    public let lostRecords: LostRecords?

    /// What opening for write cut off the last evidence pack (bytes no record refers to), if anything.
    public var evidenceRecovery: EvidenceRecovery? {
        evidencePacks.lock.withLock { evidencePacks.state.recovery }
    }

    init(
        directory: DataDirectory, fileSystem: any FileSystem, options: LogOptions,
        clock: @escaping @Sendable () -> Int64,
        writerLock: WriterLock?, state: LogState, recovery: RecoveryReport?, lostRecords: LostRecords? = nil
    ) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.options = options
        self.clock = clock
        self.writerLock = writerLock
        self.state = state
        self.state.writer.commits = GroupCommitQueue(maxWeight: options.maxBatchRecords, weight: { $0.entries.count })
        self.recovery = recovery
        self.lostRecords = lostRecords
        evidencePacks = EvidenceStore(
            directory, fileSystem: fileSystem, writable: writerLock != nil, limit: Int64(options.evidencePackSize))
        batchWriter = BatchWriter(
            fileSystem: fileSystem, directory: directory, segmentSize: options.segmentSize,
            evidencePacks: evidencePacks)
    }

    /// Opens the data directory for appending, creating it when needed.
    ///
    /// Takes the directory's exclusive lock (a second writer gets ``LogError/Code/locked`` naming the holder),
    /// cuts a torn tail (keeping the cut bytes in `lost+found`), refuses damage before the tail
    /// (``LogError/Code/damaged`` naming segment, offset and record), and loads or rebuilds the indexes. Then it
    /// indexes the evidence packs and cuts the bytes after the last pack's last valid entry the same way, unless a
    /// record refers to evidence in them (found by the options' ``LogOptions/evidenceReferences``): that is damage
    /// (``LogError/Code/damaged`` naming pack, offset and record), and nothing is cut.
    /// - Parameters:
    ///   - environment: the environment this writer writes; a directory already bound to another one is
    ///     refused with ``LogError/Code/environmentMismatch``. Nil: whatever the directory is bound to.
    ///   - app: the app this writer writes for, recorded in `meta` at the first write (also into a directory bound
    ///     before identities were recorded); a directory bound to another app is refused with
    ///     ``LogError/Code/appMismatch``. Nil: whatever the directory is bound to.
    public static func openWriter(
        at directory: String, environment: String?, app: AppIdentity? = nil, options: LogOptions = .init(),
        fileSystem: any FileSystem = PosixFileSystem(),
        clock: @escaping @Sendable () -> Int64 = SystemClock.wallMilliseconds
    ) throws(LogError) -> EventLog {
        let layout = DataDirectory(root: directory)
        do {
            try fileSystem.createDirectories(directory)
        } catch {
            throw LogError.system(error, "creating \(directory)")
        }
        let lock = try WriterLock.acquire(fileSystem, layout, command: options.lockHolder)
        do {
            return try open(
                layout, environment: environment, app: app, writable: true, options: options, fileSystem: fileSystem,
                clock: clock, writerLock: lock)
        } catch {
            lock.release(fileSystem)
            throw error
        }
    }

    /// Opens the data directory for reading, without the lock: it sees the records that were complete when it
    /// opened (and after ``refresh()``). A torn tail is ignored, not cut; damage before it is refused.
    public static func openReader(
        at directory: String, options: LogOptions = .init(), fileSystem: any FileSystem = PosixFileSystem()
    ) throws(LogError) -> EventLog {
        try open(
            DataDirectory(root: directory), environment: nil, app: nil, writable: false, options: options,
            fileSystem: fileSystem, clock: SystemClock.wallMilliseconds, writerLock: nil)
    }

    /// Whether this log can append (it was opened as the writer and is not closed).
    public var isWriter: Bool { writerLock != nil }

    /// The last record's seq (0 when empty) and its chain hash (the genesis hash when empty; empty bytes when
    /// the environment is not known yet).
    public var head: (seq: UInt64, hash: [UInt8]) {
        lock.withLock { (state.head.seq, state.head.hash) }
    }

    /// The time of the last record, in ms since the epoch (0 when empty).
    public var headTime: Int64 {
        lock.withLock { state.head.time }
    }

    /// The app identity the directory is bound to (for a writer, the one it binds at its first write), if any.
    public var appIdentity: AppIdentity? {
        lock.withLock { state.binding.identity }
    }

    /// The environment the directory is bound to (nil until its first write when none was given).
    public var environment: String? {
        lock.withLock { state.binding.environment }
    }

    /// The data directory's path.
    public var path: String { directory.root }

    /// Writes the index files (when this is the writer: first waiting for a cluster file being written, then
    /// copying the records no cluster file holds once there are ``LogOptions/clusterMinimum`` of them), closes
    /// every file and releases the lock.
    /// Later calls fail with ``LogError/Code/notWritable``; closing again does nothing.
    public func close() {
        let building = lock.withLock { () -> Bool in
            if state.closed || !isWriter { return false }
            stopMaintenanceLocked()
            state.maintaining = options.clusterMinimum > 0
            return state.maintaining
        }
        // The records no cluster file holds yet get theirs (not holding the lock: the build reads the log).
        if building { clusterRecords(finishing: true, merging: false) }
        let segments: [Segment]? = lock.withLock {
            if state.closed { return nil }
            if isWriter && state.indexes.coveredSeq != state.head.seq { try? writeIndexesLocked() }
            state.closed = true
            lock.broadcast()  // wake long-pollers
            return state.segments
        }
        // Closed before: its descriptors' numbers may belong to other files by now.
        guard let segments else { return }
        for segment in segments { try? fileSystem.close(segment.fd) }
        evidencePacks.close()
        writerLock?.release(fileSystem)
    }

    deinit {
        segmentMaps.unmapAll(fileSystem)
        if !state.closed {
            for segment in state.segments { try? fileSystem.close(segment.fd) }
            writerLock?.release(fileSystem)
        }
    }
}
