import LedgerSystem
import Synchronization

/// A copy, in this process's memory, of what subject reads take from the records table (each record's subject
/// keys, recorded time and payload) for seqs 1 through ``RecordCopies/through``, so that a subject read costs one
/// query (the head) instead of one per key with a page fetch per record.
///
/// Records are never changed and their seqs have no gaps, so a prefix of the table stays exact: before it
/// answers, a read copies the records appended since, by this process or any other, and then sees everything
/// committed before it began, as a read of the database does.
///
/// The lifecycle: `loading` (a thread copies the table in passes; reads go to the database), `ready` (reads are
/// answered here), `dropped` (the copy outgrew its limit or a read of the table failed: memory freed, reads go to
/// the database from then on), `closed`. Touched only holding `lock`.
final class SubjectReplica: @unchecked Sendable {
    private enum Phase {
        case loading, ready, dropped, closed
    }

    /// The most bytes the copy may take (payloads and bookkeeping) before it is dropped.
    let limit: Int
    /// The copied records, locked while a read answers from them or copies more.
    let copies = Mutex(RecordCopies())
    private let lock = ConditionLock()
    private var phase = Phase.loading
    private var loaderRunning = false

    init(limit: Int) {
        self.limit = limit
    }

    /// Whether reads are answered from the copy.
    var isReady: Bool { lock.withLock { phase == .ready } }

    /// Whether the loader should go on with another pass.
    var isLoading: Bool { lock.withLock { phase == .loading } }

    /// The loader's thread started.
    func loaderStarted() { lock.withLock { loaderRunning = true } }

    /// The loader copied the table up to the head: reads are answered here from now on.
    func loaded() {
        lock.withLock {
            if phase == .loading { phase = .ready }
            lock.broadcast()
        }
    }

    /// The loader's thread ended (whatever the phase).
    func loaderEnded() {
        lock.withLock {
            loaderRunning = false
            lock.broadcast()
        }
    }

    /// Gives up the copy for good: reads go to the database. The caller frees the copies (it may hold them).
    func drop() {
        lock.withLock {
            if phase == .loading || phase == .ready { phase = .dropped }
            lock.broadcast()
        }
    }

    /// Waits (up to `seconds`) until the copy is ready or given up; whether it is ready.
    func awaitLoaded(seconds: Double) -> Bool {
        let deadline = SystemClock.wallDeadline(microseconds: Int(seconds * 1e6))
        lock.lock()
        defer { lock.unlock() }
        while phase == .loading {
            if !lock.wait(until: deadline) { break }
        }
        return phase == .ready
    }

    /// Stops the loader and waits for its thread to end; the copy is freed.
    func close() {
        lock.lock()
        phase = .closed
        lock.broadcast()
        while loaderRunning { lock.wait() }
        lock.unlock()
        copies.withLock { $0 = RecordCopies() }
    }
}

/// The copied records of a ``SubjectReplica``: payloads in chunks that never move, and the seqs of each subject
/// key, ascending.
struct RecordCopies: ~Copyable {
    /// The last seq copied (0: none).
    private(set) var through: UInt64 = 0
    /// The bytes the copy takes, near enough: payloads, per-record and per-key bookkeeping.
    private(set) var bytes = 0
    private var recordedAt: [Int64] = []
    private var spans: [PayloadSpan] = []
    private var chunks: [[UInt8]] = []
    private var subjects: [String: [UInt64]] = [:]

    /// Where a payload lies: a chunk, an offset in it and a length.
    private struct PayloadSpan {
        var chunk: UInt32
        var offset: UInt32
        var count: UInt32
    }

    /// The size of a payload chunk; a larger payload has a chunk of its own.
    static let chunkSize = 4 << 20

    /// Appends record `seq`, which must be the one after ``through``.
    mutating func append(
        seq: UInt64, recordedAt time: Int64, subjectKeys: [String], payload: UnsafeRawBufferPointer
    ) {
        precondition(seq == through + 1, "record copies must be appended in seq order without gaps")
        if chunks.isEmpty || chunks[chunks.count - 1].count + payload.count > Self.chunkSize {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(max(Self.chunkSize, payload.count))
            chunks.append(chunk)
            bytes += chunk.capacity
        }
        let chunk = chunks.count - 1
        spans.append(
            PayloadSpan(
                chunk: UInt32(chunk), offset: UInt32(chunks[chunk].count), count: UInt32(payload.count)))
        chunks[chunk].append(contentsOf: payload)
        recordedAt.append(time)
        bytes += MemoryLayout<PayloadSpan>.stride + MemoryLayout<Int64>.stride
        for key in subjectKeys {
            if subjects[key] == nil { bytes += key.utf8.count + 64 }
            if subjects[key, default: []].last != seq {
                subjects[key, default: []].append(seq)
                bytes += MemoryLayout<UInt64>.stride
            }
        }
        through = seq
    }

    /// Calls `body` with the seq, recorded time and payload of each record under `key` up to seq `last`,
    /// ascending, leaving out the seqs in `skipping`.
    func forEachPayload(
        forSubjectKey key: String, skipping: Set<UInt64>, through last: UInt64,
        _ body: (UInt64, Int64, UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        guard let seqs = subjects[key] else { return }
        for seq in seqs where !skipping.contains(seq) {
            if seq > last { return }
            let index = Int(seq - 1)
            let span = spans[index]
            try chunks[Int(span.chunk)].withUnsafeBytes { chunk in
                let start = Int(span.offset)
                try body(
                    seq, recordedAt[index], UnsafeRawBufferPointer(rebasing: chunk[start..<start + Int(span.count)]))
            }
        }
    }
}
