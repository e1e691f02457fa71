import LedgerStore
import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reading a ``LogImage``'s copies: into memory of their own, one thread reading while another scans behind.
extension LogImage {
    /// Memory for a segment's copy: anonymous pages with huge pages advised, so that filling a copy of a hundred
    /// megabytes takes a few dozen page faults rather than tens of thousands.
    /// When no mapping is to be had, the allocator's memory.
    static func allocate(_ size: Int) -> Owned {
        if let memory = HugePages.map(size, populate: false) { return Owned(buffer: memory, kind: .anonymous) }
        return Owned(buffer: .allocate(byteCount: max(size, 1), alignment: 64), kind: .allocated)
    }

    /// Releases what ``allocate(_:)`` or a mapping gave.
    static func release(_ owned: Owned, _ fileSystem: any FileSystem) {
        switch owned.kind {
        case .anonymous: HugePages.unmap(owned.buffer)
        case .allocated: owned.buffer.deallocate()
        case .file: fileSystem.unmap(UnsafeRawBufferPointer(owned.buffer))
        }
    }

    /// Reads the copies in order, in reads of 2 MiB, publishing the bytes read after each (so a scan running on
    /// another thread can follow right behind); stops early when ``stopped`` is set.
    func fill() throws(LogError) {
        var total = 0
        for copy in copies {
            var done = 0
            let count = Int(copy.segment.size)
            while done < count {
                if stopped.load(ordering: .relaxed) { return }
                let want = min(2 << 20, count - done)
                let got: Int
                do {
                    got = try log.fileSystem.readFully(
                        copy.segment.fd,
                        into: UnsafeMutableRawBufferPointer(rebasing: copy.buffer[done..<(done + want)]),
                        at: Int64(done))
                } catch {
                    stopped.store(true, ordering: .relaxed)
                    throw LogError.system(error, "reading segment \(copy.segment.name)")
                }
                guard got == want else {
                    stopped.store(true, ordering: .relaxed)
                    throw LogError(
                        .damaged,
                        "segment \(copy.segment.name) ends at byte \(done + got), before its last record ends")
                }
                done += want
                total += want
                copied.store(total, ordering: .releasing)
            }
        }
    }

    /// Waits until the copies have been read up to byte `end` (in their reading order).
    func wait(until end: Int) throws(LogError) -> Int {
        while true {
            let read = copied.load(ordering: .acquiring)
            if read >= end { return read }
            if stopped.load(ordering: .relaxed) { throw LogError(.io, "reading the log stopped") }
            sched_yield()
        }
    }

    /// Stops ``fill()`` early (the scan behind it failed).
    func stopFilling() { stopped.store(true, ordering: .relaxed) }
}

extension EventLog {
    /// An image of every record up to the head (see ``LogImage``), or nil when the segments it would have to
    /// read into memory (the last, and any the file system does not map) hold more than `copyLimit` bytes.
    public func image(copyLimit: Int = 512 << 20) throws(LogError) -> LogImage? {
        let image = try makeImage(copyLimit: copyLimit)
        try image?.fill()
        return image
    }

    /// An image of the records up to the head, its copies not read yet.
    private func makeImage(copyLimit: Int) throws(LogError) -> LogImage? {
        let (segments, head, hash) = try lock.withLock { () throws(LogError) in
            guard !state.closed else { throw Self.closedError }
            return (state.segments, state.head.seq, state.head.hash)
        }
        return try LogImage.make(
            log: self, segments: segments, headSeq: head, copyLimit: copyLimit, tail: (tailStaysWhole(), hash))
    }

    /// Whether the last segment's bytes up to this log's head cannot be cut while an image maps them (touching a
    /// mapped byte the file no longer has would kill the process). Bytes are cut only by a writer: on opening,
    /// after the last valid record; after a failed write, back to where that write began. So they stay when this
    /// log is the writer (its head is acknowledged: every failed write began after it), and when no writer holds
    /// the directory (one that starts later begins after the last valid record, the head's at the latest). A
    /// writer elsewhere could cut records it has written but not yet made durable, which a reader may hold as its
    /// head. Checked with the writer's mark on the data directory (``FileSystem/markHeld(_:)``); false when that
    /// cannot be read. ``LogImage/make(log:segments:headSeq:copyLimit:tail:)`` then checks that the head record is
    /// still there, in the bytes it maps.
    func tailStaysWhole() -> Bool {
        if isWriter { return true }
        guard let fd = try? fileSystem.open(directory.root, .directoryOnly) else { return false }
        defer { try? fileSystem.close(fd) }
        return (try? fileSystem.isMarkedHeld(fd)) == false
    }

    /// ``image(copyLimit:)``, calling `scan` with the image while its copies are being read, on a thread of its
    /// own when there is more than one processor: `scan` may only go through the image in order
    /// (``LogImage/forEachRecord(checkCRC:_:)``, which follows right behind the reads). Rethrows what `scan`
    /// throws, or a read's failure.
    public func image(copyLimit: Int = 512 << 20, whileReading scan: (LogImage) throws -> Void) throws -> LogImage? {
        guard let image = try makeImage(copyLimit: copyLimit) else { return nil }
        try image.fill(whileReading: scan)
        return image
    }
}

extension LogImage {
    /// Reads the copies while `scan` goes through the image right behind the reads, on a thread of its own when
    /// there is more than one processor (see ``EventLog/image(copyLimit:whileReading:)``).
    func fill(whileReading scan: (LogImage) throws -> Void) throws {
        guard onlineProcessorCount > 1, !copies.isEmpty else {
            try fill()
            try scan(self)
            return
        }
        let failures = ResultSlots<any Error>(count: 2)
        withoutActuallyEscaping(scan) { scan in
            let work = ImageWork(image: self, scan: scan)
            runThreads(2) { part in
                do {
                    if part == 0 { try work.image.fill() } else { try work.scan(work.image) }
                } catch {
                    if part == 1 { work.image.stopFilling() }
                    failures.set(part, error)
                }
            }
        }
        // A failed read explains a scan that stopped for want of bytes.
        if let failure = failures.values().compactMap({ $0 }).first { throw failure }
    }
}

/// What the two threads of ``LogImage/fill(whileReading:)`` share.
///
/// `@unchecked Sendable`: one thread only fills the image's copies (publishing each read with a release store),
/// the other only reads bytes already published; both are joined before `scan`'s borrowed context ends.
private struct ImageWork: @unchecked Sendable {
    let image: LogImage
    let scan: (LogImage) throws -> Void
}
