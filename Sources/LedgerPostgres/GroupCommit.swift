import LedgerStore
import LedgerSystem

/// Group commit for one store handle (``GroupCommitQueue``, as the file log's): callers queue their entries; one
/// of them, the leader, commits everyone's queued entries in one transaction, so concurrent requests share one
/// round of COMMIT (one WAL flush) instead of waiting for each other's.
final class GroupCommit: @unchecked Sendable {
    // @unchecked Sendable: `queue` is only touched while holding `lock`.
    private let lock = ConditionLock()
    private var queue: GroupCommitQueue<[LogEntry], Result<[AppendOutcome], LogError>>

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
        while true {
            switch queue.next(ticket) {
            case .done(let result):
                return try result.get()
            case .wait:
                lock.wait()
            case .lead(let batch):
                lock.unlock()
                let result = Result { () throws(LogError) in try commit(batch.flatMap(\.request)) }
                lock.lock()
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
