import LedgerCrypto
import LedgerStore
import LedgerSystem

/// Framed entries written with one write, kept in memory until a sync covers them.
struct PendingBlock {
    /// The framed entries.
    var bytes: [UInt8]
    /// Each entry's digest, offset in `bytes` and body length.
    var entries: [(digest: EvidenceDigest, offset: Int, length: Int)] = []
    /// The order in which blocks were written.
    var serial = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// One block holding the entries of several, in order.
    init(merging blocks: [PendingBlock]) {
        bytes = []
        bytes.reserveCapacity(blocks.reduce(0) { $0 + $1.bytes.count })
        for block in blocks {
            let base = bytes.count
            bytes.append(contentsOf: block.bytes)
            entries.append(contentsOf: block.entries.map { ($0.digest, base + $0.offset, $0.length) })
        }
    }
}

/// The evidence packs of one data directory: appends bodies (one write per call), makes them durable with one
/// `fdatasync` of the pack, and finds a body by its SHA-256 through an in-memory index built from the entry
/// headers.
///
/// Thread-safe: the writes and the index are serialised by a lock; the `fdatasync` runs outside it, so puts
/// continue while a batch is being made durable.
final class EvidenceStore: @unchecked Sendable {
    // @unchecked Sendable: `state` is read and written only while holding `lock`.
    let folder: String
    let lostAndFound: String
    let fileSystem: any FileSystem
    let writable: Bool
    let limit: Int64
    let lock = ConditionLock()
    var state = State()

    /// Everything that changes, guarded by `lock`.
    struct State {
        /// Open descriptors of every pack found or created, by number.
        var packs: [UInt32: FileDescriptor] = [:]
        /// How far each pack was indexed.
        var scanned: [UInt32: Int64] = [:]
        /// The pack new entries go to, and where its next entry starts.
        var current: (number: UInt32, fd: FileDescriptor, end: Int64)?
        /// The end of the current pack at its last successful `fdatasync` (or creation).
        var syncedEnd: Int64 = 0
        /// The blocks written to the current pack since that sync (kept until a sync covers them).
        var unsynced: [PendingBlock] = []
        /// Blocks a failed sync should have covered: the kernel may have dropped them, so the next sync writes
        /// them again first.
        var rewrite: [PendingBlock] = []
        /// The serial number of the next block written.
        var nextSerial = 1
        /// Where every body is.
        var index: [EvidenceDigest: EvidenceLocation] = [:]
        /// Set when a failed write could not be cut off the current pack: the next write cuts it first.
        var dirtyEnd: Int64?
        /// Whether the packs were scanned (a writer scans on open, a reader on first use).
        var loaded = false
        /// Whether evidence files of the old per-file layout (`<2 hex>/<62 hex>`) exist.
        var hasLegacy = false
        /// The bytes after the last valid entry of the writer's last pack, until its open cuts them.
        var tail: EvidenceTail?
        /// The unreadable stretches of the packs that valid entries follow (left in place, skipped by the scan): a
        /// crash's hole or damage, told apart by ``EvidenceTail/holdsTornEntry(at:)`` when a record's evidence is
        /// in one.
        var skipped: [EvidenceTail] = []
        /// What the writer's open cut off a torn pack tail, if anything.
        var recovery: EvidenceRecovery?
        var closed = false
        /// The bytes of a block a sync made durable, kept to build the next block in: a batch's block is tens of
        /// megabytes, and fresh memory costs a page fault per page and a zero fill.
        var spare: [UInt8] = []

        /// An empty buffer for a block of `capacity` bytes: the spare one when it is large enough.
        mutating func takeSpare(capacity: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            swap(&bytes, &spare)
            bytes.removeAll(keepingCapacity: true)
            bytes.reserveCapacity(capacity)
            return bytes
        }

        /// Keeps a durable block's buffer for the next block, when it is larger than the spare one.
        mutating func keepSpare(_ bytes: [UInt8]) {
            if bytes.capacity > spare.capacity { spare = bytes }
        }
    }

    init(_ layout: DataDirectory, fileSystem: any FileSystem, writable: Bool, limit: Int64) {
        folder = layout.evidence
        lostAndFound = layout.lostAndFound
        self.fileSystem = fileSystem
        self.writable = writable
        self.limit = limit
    }

    /// The path of pack `number`.
    func path(_ number: UInt32) -> String { Path.join(folder, EvidencePack.name(number)) }

    /// Where earlier versions kept the evidence with this digest, one file each (still read).
    func legacyPath(_ digest: EvidenceDigest) -> String {
        EvidenceReferences.legacyPath(root: folder, digest: digest.bytes)
    }

    /// Stores bodies under their SHA-256; bodies already stored are skipped, except those in `replacing` (stored
    /// but damaged: a fresh copy is written, which reads then find). With `durable`, returns once every one of them
    /// is durable.
    func put(_ batch: [HashedBytes], durable: Bool, replacing: Set<EvidenceDigest> = []) throws(SystemError) {
        try lock.withLock { () throws(SystemError) in
            try loadLocked()
            var pending: [(position: Int, digest: EvidenceDigest)] = []
            var seen: Set<EvidenceDigest> = []
            var total = 0
            for (position, piece) in batch.enumerated() {
                let digest = EvidenceDigest(piece.sha256)!
                guard seen.insert(digest).inserted else { continue }
                let replace = replacing.contains(digest)
                if let found = state.index[digest], !found.damaged, !replace { continue }
                if !replace, state.hasLegacy, let status = try fileSystem.stat(legacyPath(digest)),
                    status.size == Int64(piece.bytes.count)
                {
                    continue
                }
                pending.append((position, digest))
                total += EvidencePack.headerSize + piece.bytes.count
            }
            guard !pending.isEmpty else { return }
            var block = PendingBlock(bytes: state.takeSpare(capacity: total))
            block.entries.reserveCapacity(pending.count)
            var header = [UInt8](repeating: 0, count: EvidencePack.headerSize)
            for item in pending {
                let piece = batch[item.position]
                let body = piece.bytes
                body.withUnsafeBytes { body in
                    header.withUnsafeMutableBytes { header in
                        EvidencePack.encodeHeader(body: body, digest: piece.sha256, at: header.baseAddress!)
                    }
                }
                block.entries.append((item.digest, block.bytes.count, body.count))
                block.bytes.append(contentsOf: header)
                block.bytes.append(contentsOf: body)
            }
            try appendLocked(block)
        }
        if durable { try sync() }
    }

    /// Writes a block of framed entries at the current pack's end with one write, indexes them and keeps the block
    /// until a sync covers it. A failed write is cut off again.
    private func appendLocked(_ block: PendingBlock) throws(SystemError) {
        let target = try currentLocked()
        do throws(SystemError) {
            try fileSystem.writeAll(target.fd, block.bytes, at: target.end)
        } catch {
            // Cut the partial entries off again, so nothing after them is written behind a hole.
            if (try? fileSystem.ftruncate(target.fd, size: target.end)) == nil { state.dirtyEnd = target.end }
            throw error
        }
        for entry in block.entries {
            state.index[entry.digest] = EvidenceLocation(
                pack: target.number, offset: target.end + Int64(entry.offset), length: entry.length)
        }
        state.current!.end = target.end + Int64(block.bytes.count)
        state.scanned[target.number] = state.current!.end
        var kept = block
        kept.serial = state.nextSerial
        state.nextSerial += 1
        state.unsynced.append(kept)
    }

    /// Makes every entry written so far durable: one `fdatasync` of the current pack (earlier packs were synced
    /// when they were rolled). When a sync fails, the kernel may have dropped the pages it was writing, so every
    /// entry not yet known durable is written again (from memory) before the next sync.
    func sync() throws(SystemError) {
        let target: (number: UInt32, fd: FileDescriptor, end: Int64, serial: Int)? = try lock.withLock {
            () throws(SystemError) in
            if !state.rewrite.isEmpty {
                let again = PendingBlock(merging: state.rewrite)
                state.rewrite.removeAll()
                do throws(SystemError) {
                    try appendLocked(again)
                } catch {
                    state.rewrite.insert(again, at: 0)
                    throw error
                }
            }
            guard let current = state.current, current.end > state.syncedEnd else { return nil }
            return (current.number, current.fd, current.end, state.nextSerial - 1)
        }
        guard let target else { return }
        do {
            try fileSystem.fdatasync(target.fd)
        } catch {
            lock.withLock { failedSyncLocked() }
            throw error
        }
        lock.withLock {
            guard state.current?.number == target.number else { return }
            state.syncedEnd = max(state.syncedEnd, target.end)
            for block in state.unsynced where block.serial <= target.serial { state.keepSpare(block.bytes) }
            state.unsynced.removeAll { $0.serial <= target.serial }
        }
    }

    /// After a failed sync: every block not known durable is to be written again.
    func failedSyncLocked() {
        state.rewrite.append(contentsOf: state.unsynced)
        state.unsynced.removeAll()
    }

    /// The body stored under `digest` and where it was read; nil when the packs do not hold it.
    /// - Throws: ``LogError/Code/evidenceDamaged`` when the entry's header or body checksum fails.
    func read(_ digest: EvidenceDigest) throws(LogError) -> [UInt8]? {
        var found: (EvidenceLocation, FileDescriptor)?
        do throws(SystemError) {
            found = try lock.withLock { () throws(SystemError) in
                try loadLocked()
                if state.index[digest] == nil && !writable { try refreshLocked() }
                guard let location = state.index[digest], let fd = state.packs[location.pack] else { return nil }
                return (location, fd)
            }
        } catch {
            throw LogError.system(error, "reading the evidence packs in \(folder)")
        }
        guard let (location, fd) = found else { return nil }
        let name = EvidencePack.name(location.pack)
        let damaged = LogError(
            .evidenceDamaged,
            "evidence entry at byte \(location.offset) of \(path(location.pack)) fails its checksum; "
                + "restore \(name) from a backup")
        if location.damaged { throw damaged }
        let entry: [UInt8]
        do {
            entry = try fileSystem.read(
                fd, count: EvidencePack.headerSize + location.length, at: location.offset)
        } catch {
            throw LogError.system(error, "reading evidence from \(path(location.pack))")
        }
        guard entry.count == EvidencePack.headerSize + location.length else { throw damaged }
        let header = entry.withUnsafeBytes { EvidencePack.decodeHeader($0.baseAddress!) }
        guard let header, header.digest == digest, header.length == location.length else { throw damaged }
        return Array(entry[EvidencePack.headerSize...])
    }

    /// Whether the evidence stored under `digest` is there: an entry in the packs (an index lookup; a reader looks
    /// again on a miss, for what a live writer added since), or a file of the per-file layout of earlier versions.
    /// Bodies are not read: `verify` checks the packs' checksums, `audit` re-hashes the evidence.
    func holds(_ digest: EvidenceDigest) throws(SystemError) -> Bool {
        try lock.withLock { () throws(SystemError) in
            try loadLocked()
            if state.index[digest] != nil { return true }
            if !writable {
                try refreshLocked()
                if state.index[digest] != nil { return true }
            }
            guard state.hasLegacy else { return false }
            return try fileSystem.stat(legacyPath(digest)) != nil
        }
    }

    /// Where the body stored under `digest` is: its pack's path, the entry's offset and the body's length.
    func location(_ digest: EvidenceDigest) -> (path: String, offset: Int64, length: Int)? {
        lock.withLock {
            try? loadLocked()
            return state.index[digest].map { (path($0.pack), $0.offset, $0.length) }
        }
    }

    /// Closes every pack.
    func close() {
        let descriptors: [FileDescriptor] = lock.withLock {
            if state.closed { return [] }
            state.closed = true
            return Array(state.packs.values)
        }
        for fd in descriptors { try? fileSystem.close(fd) }
    }

    deinit {
        if !state.closed { for fd in state.packs.values { try? fileSystem.close(fd) } }
    }
}
