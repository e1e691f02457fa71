import LedgerCore
import LedgerLog
import LedgerStore
import LedgerSystem
import Synchronization

extension Ledger {
    /// Calls `body` with the decoded entries of each component, in no promised order (each as soon as the
    /// log has been read past its last record): one sequential read of the log, each record decoded once.
    /// Holds the decoded records of the components not finished yet.
    func forEachComponentStreaming(
        progress: ((Int) -> Void)? = nil, _ body: ([LedgerEntry]) throws(ServiceError) -> Void
    ) throws(ServiceError) {
        _ = try foldComponents(threads: 1, progress: progress, into: ()) { _, entries throws(ServiceError) in
            try body(entries as [LedgerEntry])
        }
    }

    /// Folds every component into per-thread partial results, on `threads` threads, calling `body` with a thread's
    /// partial result and a component's records. Returns the partial results (one per thread used), for the caller
    /// to merge; `progress` is told the records folded so far, from one thread at a time. `body` runs on several
    /// threads at once: it must touch nothing but its partial result and values that do not change.
    ///
    /// The file log is read once into a ``LogImage`` (the sealed segments mapped, the last one read), its records
    /// grouped into components from their subject keys, and the threads then take the components a few at a time
    /// and read each one's records in place, checking each record's checksum as they decode it. When the image
    /// would take too much memory, thread `i` instead reads the log sequentially and decodes only the records of
    /// the components numbered `i` modulo `threads`, as soon as it has read the component's last record: when the
    /// segments the image must read into memory (the last, and any not mapped) hold more than `copyLimit` bytes.
    func foldComponents<Partial, Batch: ComponentBatch>(
        threads: Int = 2, copyLimit: Int = 512 << 20, progress: ((Int) -> Void)? = nil, into initial: Partial,
        _ body: (inout Partial, Batch) throws(ServiceError) -> Void
    ) throws(ServiceError) -> [Partial] {
        guard let eventLog = log as? any RecordViews else {
            var partial = initial
            try forEachComponent(progress: progress) { entries throws(ServiceError) in
                var batch = Batch()
                for entry in entries { batch.add(entry) }
                try body(&partial, batch)
            }
            return [partial]
        }
        if let (image, starts, members) = try Self.imageAndMembers(of: eventLog, copyLimit: copyLimit) {
            return try Self.foldComponents(
                of: image, starts: starts, members: members, threads: threads, progress: progress, into: initial, body)
        }
        let map = try componentMap()
        let count = max(1, min(threads, map.lastSeq.count))
        let done = FoldProgress()
        defer { progress?(done.total) }
        return try Self.partials(count) { (thread) throws(ServiceError) -> Partial in
            var partial = initial
            try Self.streamComponents(of: eventLog, map, thread: thread, of: count) {
                (batch: Batch) throws(ServiceError) in
                try body(&partial, batch)
                done.add(batch.count, thread: thread, reporting: progress)
            }
            return partial
        }
    }

    /// ``foldComponents(threads:copyLimit:progress:into:_:)`` over an image of the log.
    private static func foldComponents<Partial, Batch: ComponentBatch>(
        of image: LogImage, starts: [Int], members: [UInt32], threads: Int, progress: ((Int) -> Void)?,
        into initial: Partial,
        _ body: (inout Partial, Batch) throws(ServiceError) -> Void
    ) throws(ServiceError) -> [Partial] {
        // Component `c`'s records are `members[starts[c]..<starts[c + 1]]` (seqs less one). The grouping checked
        // every frame but left the checksums to the threads, which check each record's as they read it (and the
        // grouping those of the records in no component). The threads take the components 16 at a time, so a
        // thread slowed by other work on its core leaves the rest to the other.
        let components = starts.count - 1
        let count = max(1, min(threads, components))
        let done = FoldProgress()
        let queue = FoldProgress()
        let chunk = 16
        defer { progress?(done.total) }
        return try partials(count) { (thread) throws(ServiceError) -> Partial in
            var partial = initial
            var batch = Batch()
            while true {
                let first = queue.add(chunk) - chunk
                if first >= components { break }
                for component in first..<min(first + chunk, components) {
                    let records = starts[component]..<starts[component + 1]
                    if component + 1 < components {
                        // The next component's records are scattered over the log: start loading them all now,
                        // so their cache misses overlap instead of coming one record at a time.
                        for index in starts[component + 1]..<starts[component + 2] {
                            image.prefetch(UInt64(members[index]) + 1)
                        }
                    }
                    batch.removeAll(reserving: records.count)
                    for index in records {
                        let seq = UInt64(members[index]) + 1
                        let view: LogRecordView
                        do throws(LogError) {
                            view = try image.record(seq)
                        } catch {
                            throw ServiceError(error)
                        }
                        try batch.add(seq: seq, recordedAt: view.recordedAt, payload: view.payload)
                    }
                    try body(&partial, batch)
                    done.add(batch.count, thread: thread, reporting: progress)
                }
            }
            return partial
        }
    }

    /// ``onThreads(_:_:)`` for work that may fail: every thread's value, or the first error in thread order.
    static func partials<Partial>(_ count: Int, _ run: (Int) throws(ServiceError) -> Partial)
        throws(ServiceError) -> [Partial]
    {
        let results = onThreads(count) { thread -> Result<Partial, ServiceError> in
            do throws(ServiceError) {
                return .success(try run(thread))
            } catch {
                return .failure(error)
            }
        }
        return try results.map { result throws(ServiceError) in try result.get() }
    }

    /// Runs `run(0)`, …, `run(count - 1)`, each on its own thread (on this one when `count` is 1), and returns
    /// their values in that order.
    private static func onThreads<Value>(_ count: Int, _ run: (Int) -> Value) -> [Value] {
        if count == 1 { return [run(0)] }
        let slots = ResultSlots<Value>(count: count)
        withoutActuallyEscaping(run) { run in
            let work = UncheckedWork(run: run)
            runThreads(count) { thread in slots.set(thread, work.run(thread)) }
        }
        return slots.values().map { $0! }
    }

    /// One thread's share of ``foldComponents(threads:copyLimit:progress:into:_:)``. The records of a component not finished
    /// yet wait as their payload bytes (a quarter of their decoded size), and are decoded when it is.
    private static func streamComponents<Batch: ComponentBatch>(
        of log: any RecordViews, _ map: ComponentMap, thread: Int, of threads: Int,
        _ body: (Batch) throws(ServiceError) -> Void
    ) throws(ServiceError) {
        var open = [PendingRecords](repeating: PendingRecords(), count: map.lastSeq.count)
        var batch = Batch()
        try mapErrors {
            try log.forEachView(from: 1) { view, _, _ in
                let index = Int(view.seq) - 1
                guard index < map.componentOf.count else { return }
                let component = Int(map.componentOf[index])
                guard component >= 0, component % threads == thread else { return }
                guard map.lastSeq[component] == view.seq else {
                    open[component].append(view)
                    return
                }
                let pending = open[component]
                open[component] = PendingRecords()
                batch.removeAll(reserving: map.sizes[component])
                try pending.forEach { seq, recordedAt, payload in
                    try batch.add(seq: seq, recordedAt: recordedAt, payload: payload)
                }
                try batch.add(seq: view.seq, recordedAt: view.recordedAt, payload: view.payload)
                try body(batch)
            }
        }
    }
}

/// What a component's records are gathered into for a fold: whole entries, or the fold's own facts.
protocol ComponentBatch {
    /// An empty batch.
    init()
    /// How many records it holds.
    var count: Int { get }
    /// Empties it for the next component, of `count` records.
    mutating func removeAll(reserving count: Int)
    /// Adds record `seq`, decoding its payload.
    mutating func add(seq: UInt64, recordedAt: Int64, payload: UnsafeRawBufferPointer) throws(ServiceError)
    /// Adds a record decoded already.
    mutating func add(_ entry: LedgerEntry)
}

extension Array: ComponentBatch where Element == LedgerEntry {
    mutating func removeAll(reserving count: Int) {
        self = []
        reserveCapacity(count)
    }

    mutating func add(seq: UInt64, recordedAt: Int64, payload: UnsafeRawBufferPointer) throws(ServiceError) {
        append(
            LedgerEntry(
                seq: seq, recordedAt: Instant(milliseconds: recordedAt),
                record: try Ledger.record(seq: seq, decoding: payload)))
    }

    mutating func add(_ entry: LedgerEntry) { append(entry) }
}

extension FoldRecords: ComponentBatch {
    mutating func removeAll(reserving count: Int) { removeAll() }

    mutating func add(seq: UInt64, recordedAt: Int64, payload: UnsafeRawBufferPointer) throws(ServiceError) {
        try Ledger.add(seq: seq, recordedAt: recordedAt, payload: payload, to: &self)
    }

    mutating func add(_ entry: LedgerEntry) { append(entry) }
}

/// The records of one component read so far, kept as bytes: for each, seq (u64), recorded time (i64) and payload
/// length (u32), little-endian, then the payload.
private struct PendingRecords {
    private var bytes: [UInt8] = []

    /// Keeps a record read in place.
    mutating func append(_ view: LogRecordView) {
        let payload = view.payload
        if bytes.isEmpty { bytes.reserveCapacity(4 * (20 + payload.count)) }
        withUnsafeBytes(of: view.seq.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: view.recordedAt.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: payload)
    }

    /// Calls `body` with each record kept, in the order kept.
    func forEach(_ body: (UInt64, Int64, UnsafeRawBufferPointer) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { raw in
            var position = 0
            while position < raw.count {
                let seq = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                let recordedAt = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: position + 8, as: Int64.self))
                let length = Int(
                    UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: position + 16, as: UInt32.self)))
                let payload = UnsafeRawBufferPointer(rebasing: raw[(position + 20)..<(position + 20 + length)])
                try body(seq, recordedAt, payload)
                position += 20 + length
            }
        }
    }
}

/// A count shared by several threads: the records folded so far, or the next components to take.
private final class FoldProgress: Sendable {
    private let count = Atomic<Int>(0)

    /// Adds `records` and returns the new total.
    @discardableResult
    func add(_ records: Int) -> Int { count.add(records, ordering: .relaxed).newValue }

    /// Adds the records one thread folded; thread 0 tells `progress` the total about every 4,096 records.
    func add(_ records: Int, thread: Int, reporting progress: ((Int) -> Void)?) {
        let total = add(records)
        if thread == 0, let progress, total & 0xFFF < records { progress(total) }
    }

    /// The total so far.
    var total: Int { count.load(ordering: .relaxed) }
}

/// A worker's closure handed to ``runThreads(_:_:)``.
///
/// `@unchecked Sendable`: each thread calls it with its own index, and it touches only that thread's partial
/// result and values every thread only reads (the component map, the log, the fold); the threads are joined
/// before the closure's borrowed context ends.
private struct UncheckedWork<Value>: @unchecked Sendable {
    let run: (Int) -> Value
}
