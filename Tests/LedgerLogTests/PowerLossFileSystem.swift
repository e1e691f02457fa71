import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The real file system, with what a power loss would keep tracked for the evidence packs, and their syncs held
/// on request: the crash tests stop the writer between its segment's `fdatasync` and its evidence pack's, and
/// copy the data directory as a power loss at that instant could leave it (``copyAsAfterPowerLoss(_:to:keeping:)``).
final class PowerLossFileSystem: PassthroughFileSystem, @unchecked Sendable {
    // @unchecked Sendable: every mutable field is touched only while holding `lock`.
    private let lock = ConditionLock()
    private var paths: [Int32: String] = [:]
    /// Each evidence pack's size when its last successful sync began: what a power loss keeps for certain.
    private var durableSize: [String: Int64] = [:]
    private var holding = false
    private var held = 0
    /// Segment syncs that returned while evidence syncs were being held (no evidence sync could end).
    private var segmentSyncsWhileHeld = 0

    /// From now on, every evidence pack sync waits until ``release()``.
    func holdEvidenceSyncs() { lock.withLock { holding = true } }

    /// Lets the held evidence syncs go on, and later ones run at once.
    func release() {
        lock.withLock {
            holding = false
            lock.broadcast()
        }
    }

    /// Whether an evidence sync is being held.
    var evidenceSyncHeld: Bool { lock.withLock { held > 0 } }

    /// How many segment syncs returned while evidence syncs were being held, so that none could end meanwhile.
    var segmentSyncsDuringHeldEvidenceSync: Int { lock.withLock { segmentSyncsWhileHeld } }

    /// Waits (up to 10 s) until `condition` holds; returns whether it did.
    func await(_ condition: () -> Bool) -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// Copies the directory tree at `source` to `target` as a power loss now could leave it: every file as it is
    /// (the segments and everything else were synced), but each evidence pack only up to where its last sync
    /// began, plus the first `keeping` bytes written after that (a torn write; 0: none of them), read as zeros
    /// when `zeroed` (blocks allocated whose data never reached the disk).
    func copyAsAfterPowerLoss(_ source: String, to target: String, keeping: Int64 = 0, zeroed: Bool = false) throws {
        let sizes = lock.withLock { durableSize }
        try base.createDirectories(target)
        for name in try base.readDirectory(source) {
            let from = Path.join(source, name)
            let to = Path.join(target, name)
            guard let status = try base.stat(from) else { continue }
            if status.isDirectory {
                try copyAsAfterPowerLoss(from, to: to, keeping: keeping, zeroed: zeroed)
                continue
            }
            var bytes = try base.readFile(from) ?? []
            if name.hasPrefix("pack-") {
                let durable = Int(sizes[from] ?? 0)
                bytes = Array(bytes.prefix(min(bytes.count, durable + Int(keeping))))
                if zeroed && bytes.count > durable {
                    bytes.replaceSubrange(durable..., with: repeatElement(0, count: bytes.count - durable))
                }
            }
            let fd = try base.open(to, OpenOptions(access: .writeOnly, create: true, truncate: true))
            try base.writeAll(fd, bytes, at: 0)
            try base.close(fd)
        }
    }

    private func isPack(_ path: String?) -> Bool { path?.contains("/evidence/pack-") ?? false }

    /// Holds an evidence pack's sync while asked to, and notes its size when it begins.
    private func syncing(_ fd: FileDescriptor, _ sync: () throws(SystemError) -> Void) throws(SystemError) {
        let path = lock.withLock { paths[fd.rawValue] }
        guard isPack(path), let path else {
            try sync()
            if path?.hasSuffix(".seg") ?? false {
                lock.withLock { if holding { segmentSyncsWhileHeld += 1 } }
            }
            return
        }
        lock.withLock {
            held += 1
            while holding { lock.wait() }
            held -= 1
        }
        let size = try base.fstat(fd).size
        try sync()
        lock.withLock { durableSize[path] = max(durableSize[path] ?? 0, size) }
    }

    override func open(_ path: String, _ options: OpenOptions) throws(SystemError) -> FileDescriptor {
        let fd = try base.open(path, options)
        lock.withLock { paths[fd.rawValue] = path }
        return fd
    }

    override func close(_ fd: FileDescriptor) throws(SystemError) {
        _ = lock.withLock { paths.removeValue(forKey: fd.rawValue) }
        try base.close(fd)
    }

    override func fsync(_ fd: FileDescriptor) throws(SystemError) {
        try syncing(fd) { () throws(SystemError) in try base.fsync(fd) }
    }

    override func fdatasync(_ fd: FileDescriptor) throws(SystemError) {
        try syncing(fd) { () throws(SystemError) in try base.fdatasync(fd) }
    }
}
