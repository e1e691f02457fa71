import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Seals a large batch's frames (each one's chain hash, then its checksum, in order) and hands them to their
/// segment, on a helper thread, while the leader fills the frames that follow. The chain's SHA-256 is serial by
/// nature; this way it overlaps the encoding instead of following it. Sealed bytes go to the file a chunk at a
/// time, with their writeback started, so the copy into the page cache overlaps too. Used only for batches of
/// more than two chunks; smaller ones are sealed and written by the leader.
///
/// The leader fills frames in order with ``RecordCodec/fill(_:seq:recordedAt:size:at:subject:)``, calls
/// ``submit(frames:)`` with how many are filled, and ``finish()`` once, which waits for the thread and reports
/// the first write failure (after which nothing more is written).
final class SealingWriter: @unchecked Sendable {
    // @unchecked Sendable: `ready`, `done` and `failure` are only touched while holding `lock`; the leader
    // does not change the bytes of frames it submitted, and the thread touches only submitted frames.
    private let lock = ConditionLock()
    private let fileSystem: any FileSystem
    private let fd: FileDescriptor
    private let buffer: UnsafeMutableRawPointer
    private let offset: Int64
    /// Where each frame ends in the buffer (the first starts at 0).
    private let ends: [Int]
    /// The hash the first frame chains to.
    private let previousHash: [UInt8]
    private let chunk: Int
    private var ready = 0
    private var done = false
    private var failure: SystemError?
    private var thread = pthread_t()
    /// False when no thread could be started: ``finish()`` then seals and writes everything itself.
    private var started = false

    /// Starts the thread that seals the frames ending at `ends` in `buffer` (chained after `previousHash`) as they
    /// are submitted, and writes `buffer[i]` at file offset `offset + i`, at least `chunk` bytes at a time.
    init(
        _ fileSystem: any FileSystem, _ fd: FileDescriptor, _ buffer: UnsafeMutableRawPointer, at offset: Int64,
        frameEnds ends: [Int], previousHash: [UInt8], chunk: Int
    ) {
        self.fileSystem = fileSystem
        self.fd = fd
        self.buffer = buffer
        self.offset = offset
        self.ends = ends
        self.previousHash = previousHash
        self.chunk = chunk
        let box = Unmanaged.passRetained(self)
        started =
            pthread_create(
                &thread, nil,
                { raw in
                    Unmanaged<SealingWriter>.fromOpaque(raw!).takeRetainedValue().run()
                    return nil
                }, box.toOpaque()) == 0
        if !started { box.release() }
    }

    /// Whether a write failed (the leader can stop encoding).
    var failed: Bool { lock.withLock { failure != nil } }

    /// The first `frames` frames are filled: seal and write them.
    func submit(frames: Int) {
        lock.withLock {
            ready = frames
            lock.broadcast()
        }
    }

    /// Waits until every submitted frame is sealed and written (or a write failed) and the thread ended.
    func finish() throws(SystemError) {
        lock.withLock {
            done = true
            lock.broadcast()
        }
        if started { pthread_join(thread, nil) } else { run() }
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    private func run() {
        var sealed = 0
        var written = 0
        while true {
            let target: Int = lock.withLock {
                while ready == sealed && !done { lock.wait() }
                return ready
            }
            if target == sealed { return }  // done, and everything submitted is sealed and written
            for index in sealed..<target {
                let start = index == 0 ? 0 : ends[index - 1]
                let frame = buffer + start
                if index == 0 {
                    previousHash.withUnsafeBytes { previous in
                        RecordCodec.seal(size: ends[index] - start, at: frame, previousHash: previous)
                    }
                } else {
                    RecordCodec.seal(
                        size: ends[index] - start, at: frame,
                        previousHash: UnsafeRawBufferPointer(start: frame - LogFormat.hashSize, count: 32))
                }
            }
            sealed = target
            let sealedEnd = ends[sealed - 1]
            guard sealedEnd - written >= chunk || sealed == ends.count else { continue }
            do {
                try fileSystem.writeAll(
                    fd, UnsafeRawBufferPointer(start: buffer + written, count: sealedEnd - written),
                    at: offset + Int64(written))
                fileSystem.startWriteback(fd, offset: offset + Int64(written), count: sealedEnd - written)
            } catch {
                lock.withLock { failure = error }
                return
            }
            written = sealedEnd
        }
    }
}
