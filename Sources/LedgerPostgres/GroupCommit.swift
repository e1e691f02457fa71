import LedgerStore
import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Group commit for one store handle (``GroupCommitQueue``, as the file log's): callers queue their entries; one
/// of them, the leader, commits everyone's queued entries in one transaction, so concurrent requests share one
/// round of COMMIT (one WAL flush) instead of waiting for each other's.
///
/// A caller about to lead waits a moment (at most ``gatherMicroseconds``) until as many requests are queued as were
/// in flight when the last commit ended (its batch, whose callers are about to queue their next requests, and the
/// requests queued meanwhile): without that, 16 writers split into two alternating transactions of 8, each paying
/// a whole commit (a WAL flush).
final class GroupCommit: @unchecked Sendable {
    // @unchecked Sendable: `queue` and the counters are only touched while holding `lock`.
    private let lock = ConditionLock()
    private var queue: GroupCommitQueue<[LogEntry], Result<[AppendOutcome], LogError>>
    /// Requests queued and not yet taken by a leader.
    private var queued = 0
    /// Whether a leader is committing.
    private var leading = false
    /// Requests in flight when the last commit ended: its batch and those queued meanwhile.
    private var inFlight = 0
    /// The first ticket no leader took yet (batches take the queue's front, so tickets below it are taken).
    private var firstUntaken = 0
    /// Callers waiting for the queue to fill up to `inFlight`.
    private var gathering = 0
    /// How long a leader waits for the last batch's callers.
    static let gatherMicroseconds = 1_000

    /// A group commit whose transactions take at most `maxRecords` records from the queue (a single larger call
    /// still goes whole).
    init(maxRecords: Int = 10_000) {
        queue = GroupCommitQueue(maxWeight: maxRecords, weight: \.count)
    }

    /// Queues `entries` and returns their outcomes once a leader (maybe this caller) committed them; `commit`
    /// appends a batch in one transaction and returns one outcome per entry, in order.
    func submit(
        _ entries: [LogEntry], commit: ([LogEntry]) throws(LogError) -> [AppendOutcome]
    ) throws(LogError) -> [AppendOutcome] {
        lock.lock()
        defer { lock.unlock() }
        let ticket = queue.enqueue { _ in entries }
        queued += 1
        if gathering > 0 && queued >= inFlight { lock.broadcast() }
        var gathered = false
        while true {
            if !gathered && !leading && ticket >= firstUntaken && queued < inFlight {
                gathered = true
                gathering += 1
                _ = lock.wait(until: SystemClock.wallDeadline(microseconds: Self.gatherMicroseconds))
                gathering -= 1
                continue
            }
            switch queue.next(ticket) {
            case .done(let result):
                return try result.get()
            case .wait:
                lock.wait()
            case .lead(let batch):
                leading = true
                queued -= batch.count
                firstUntaken = (batch.last?.ticket ?? firstUntaken - 1) + 1
                lock.unlock()
                let result = Result { () throws(LogError) in try commit(batch.flatMap(\.request)) }
                lock.lock()
                leading = false
                inFlight = batch.count + queued
                var start = 0
                queue.finish(
                    batch.map { request in
                        defer { start += request.request.count }
                        return (request.ticket, result.map { Array($0[start..<(start + request.request.count)]) })
                    })
                lock.broadcast()
            }
        }
    }
}
