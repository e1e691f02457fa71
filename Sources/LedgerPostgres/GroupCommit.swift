import LedgerStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Group commit for one store handle: callers queue their entries; one of them (the leader) commits everyone's
/// queued entries in one transaction, so concurrent requests share one round of COMMIT (one WAL flush) instead of
/// waiting for each other's.
///
/// `Synchronization.Mutex` has no condition variable, so this wraps a pthread mutex and condition, allocated once
/// and never moved.
final class GroupCommit: @unchecked Sendable {
    // Sendable: `queue`, `finished`, `leading` and `nextTicket` are only touched while holding `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var queue: [(ticket: Int, entries: [LogEntry])] = []
    private var finished: [Int: Result<[AppendOutcome], LogError>] = [:]
    private var leading = false
    private var nextTicket = 0
    /// The most records one transaction takes from the queue (a single larger call still goes whole).
    let maxRecords: Int

    init(maxRecords: Int = 10_000) {
        self.maxRecords = maxRecords
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Queues `entries` and returns their outcomes once a leader (maybe this caller) committed them; `commit`
    /// appends a batch in one transaction and returns one outcome per entry, in order.
    func submit(
        _ entries: [LogEntry], commit: ([LogEntry]) throws(LogError) -> [AppendOutcome]
    ) throws(LogError) -> [AppendOutcome] {
        pthread_mutex_lock(mutex)
        let ticket = nextTicket
        nextTicket += 1
        queue.append((ticket, entries))
        while true {
            if let result = finished.removeValue(forKey: ticket) {
                pthread_mutex_unlock(mutex)
                return try result.get()
            }
            if leading {
                pthread_cond_wait(condition, mutex)
                continue
            }
            leading = true
            var taken = 0
            var records = 0
            while taken < queue.count && (taken == 0 || records + queue[taken].entries.count <= maxRecords) {
                records += queue[taken].entries.count
                taken += 1
            }
            let batch = Array(queue.prefix(taken))
            queue.removeFirst(taken)
            pthread_mutex_unlock(mutex)
            let result: Result<[AppendOutcome], LogError>
            do {
                result = .success(try commit(batch.flatMap(\.entries)))
            } catch {
                result = .failure(error)
            }
            pthread_mutex_lock(mutex)
            var start = 0
            for request in batch {
                finished[request.ticket] = result.map { Array($0[start..<(start + request.entries.count)]) }
                start += request.entries.count
            }
            leading = false
            pthread_cond_broadcast(condition)
        }
    }
}
