import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Hands a large batch's encoded bytes to its segment on a helper thread, in order, as the leader encodes them:
/// copying them into the page cache and starting their writeback then overlaps the encoding (and hashing) of the
/// rest, instead of following it. Used only for batches larger than a chunk; small batches write directly.
///
/// The leader calls ``submit(upTo:)`` whenever more bytes are ready and ``finish()`` once, which waits for the
/// thread and reports the first write failure (after which nothing more is written).
final class ChunkWriter: @unchecked Sendable {
    // @unchecked Sendable: `ready`, `written`, `done` and `failure` are only touched while holding `lock`;
    // the buffer's bytes below `ready` are not changed by the leader once submitted.
    private let lock = ConditionLock()
    private let fileSystem: any FileSystem
    private let fd: FileDescriptor
    private let buffer: UnsafeMutableRawPointer
    private let offset: Int64
    private var ready = 0
    private var written = 0
    private var done = false
    private var failure: SystemError?
    private var thread = pthread_t()
    /// False when no thread could be started: ``finish()`` then writes everything itself.
    private var started = false

    /// Starts the thread that writes `buffer[i]` at file offset `offset + i` as bytes are submitted.
    init(_ fileSystem: any FileSystem, _ fd: FileDescriptor, _ buffer: UnsafeMutableRawPointer, at offset: Int64) {
        self.fileSystem = fileSystem
        self.fd = fd
        self.buffer = buffer
        self.offset = offset
        let box = Unmanaged.passRetained(self)
        started =
            pthread_create(
                &thread, nil,
                { raw in
                    Unmanaged<ChunkWriter>.fromOpaque(raw!).takeRetainedValue().run()
                    return nil
                }, box.toOpaque()) == 0
        if !started { box.release() }
    }

    /// Whether a write failed (the leader can stop encoding).
    var failed: Bool { lock.withLock { failure != nil } }

    /// The bytes before `end` are encoded: write them.
    func submit(upTo end: Int) {
        lock.withLock {
            ready = end
            lock.broadcast()
        }
    }

    /// Waits until every submitted byte is written (or a write failed) and the thread ended.
    func finish() throws(SystemError) {
        lock.withLock {
            done = true
            lock.broadcast()
        }
        if started { pthread_join(thread, nil) } else { run() }
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    private func run() {
        lock.lock()
        while true {
            while written == ready && !done { lock.wait() }
            if written == ready || failure != nil { break }
            let range = written..<ready
            lock.unlock()
            var error: SystemError?
            do {
                try fileSystem.writeAll(
                    fd, UnsafeRawBufferPointer(start: buffer + range.lowerBound, count: range.count),
                    at: offset + Int64(range.lowerBound))
                fileSystem.startWriteback(fd, offset: offset + Int64(range.lowerBound), count: range.count)
            } catch let caught {
                error = caught
            }
            lock.lock()
            written = range.upperBound
            if let error {
                failure = error
                break
            }
        }
        lock.unlock()
    }
}
