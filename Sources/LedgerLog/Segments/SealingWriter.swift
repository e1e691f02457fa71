import LedgerStore
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Seals a large batch's frames (each one's chain hash, and its checksum completed with it) on a helper thread,
/// while the leader fills the frames that follow. The chain's SHA-256 is serial by nature and the slowest step of
/// an append; this way it overlaps everything else, and the helper does nothing but hash. The leader fills each
/// frame and checksums its body (``RecordCodec/checksumBody(size:at:)``), hands the filled frames over with
/// ``submit(frames:)``, and once all are submitted calls ``finish()``, which hands the sealed bytes to the file a
/// chunk at a time (wherever the chunks cut the frames), with their writeback started, as the helper seals them.
/// Used only for batches of more than two chunks; smaller ones are sealed and written by the leader.
final class SealingWriter: @unchecked Sendable {
    // @unchecked Sendable: `ready`, `sealed` and `stop` are only touched while holding `lock`; the leader does not
    // change the bytes of frames it submitted, and writes only frames the helper has sealed, which the helper no
    // longer touches.
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
    /// Frames submitted by the leader.
    private var ready = 0
    /// Frames sealed by the helper.
    private var sealed = 0
    /// Set by the leader when it gives up (a write failed): the helper ends.
    private var stop = false
    private var thread = pthread_t()
    /// False when no thread could be started: ``finish()`` then seals everything itself.
    private var started = false

    /// Starts the thread that seals the frames ending at `ends` in `buffer` (chained after `previousHash`) as they
    /// are submitted; ``finish()`` writes `buffer[i]` at file offset `offset + i`, `chunk` bytes at a time.
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
        do {
            thread = try startThread(detached: false) { [self] in run() }
            started = true
        } catch {
            started = false
        }
    }

    /// The first `frames` frames are filled and their bodies checksummed: seal them.
    func submit(frames: Int) {
        lock.withLock {
            ready = frames
            lock.broadcast()
        }
    }

    /// Writes every frame as the helper seals it (all must have been submitted), then waits for the helper to end.
    /// After a failed write nothing more is written; the error is thrown once the helper has ended.
    func finish() throws(SystemError) {
        if !started {
            seal(from: 0, to: ends.count)
            sealed = ends.count
        }
        var written = 0
        var failure: SystemError?
        while written < ends.last! {
            let target: Int = lock.withLock {
                // The next chunk, or what is left once everything is sealed.
                while sealed < ends.count && sealedEnd - written < chunk { lock.wait() }
                return min(sealedEnd, written + chunk)
            }
            do {
                try fileSystem.writeAll(
                    fd, UnsafeRawBufferPointer(start: buffer + written, count: target - written),
                    at: offset + Int64(written))
            } catch {
                failure = error
                break
            }
            fileSystem.startWriteback(fd, offset: offset + Int64(written), count: target - written)
            written = target
        }
        if started {
            lock.withLock {
                stop = true
                lock.broadcast()
            }
            joinThread(thread)
        }
        if let failure { throw failure }
    }

    /// Where the sealed frames end. Holding the lock.
    private var sealedEnd: Int { sealed == 0 ? 0 : ends[sealed - 1] }

    private func run() {
        var done = 0
        while true {
            let target: Int = lock.withLock {
                while ready == done && !stop && done < ends.count { lock.wait() }
                return stop ? done : ready
            }
            if target == done { return }  // every frame sealed, or the leader gave up
            // Published a chunk at a time, so the leader writes each while the next is sealed (the leader fills
            // faster than this thread hashes: what is submitted runs far ahead).
            while done < target {
                var end = done + 1
                let limit = (done == 0 ? 0 : ends[done - 1]) + chunk
                while end < target && ends[end - 1] < limit { end += 1 }
                seal(from: done, to: end)
                done = end
                let stopping = lock.withLock {
                    sealed = done
                    lock.broadcast()
                    return stop
                }
                if stopping { return }
            }
        }
    }

    /// Seals frames `first..<end`, each chained to the one before it.
    private func seal(from first: Int, to end: Int) {
        for index in first..<end {
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
    }
}
