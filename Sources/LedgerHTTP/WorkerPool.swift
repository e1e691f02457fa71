import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A fixed-size pool of threads that run the handlers (verification, appends, queries) for one server's event
/// loop, jobs first in, first out.
///
/// Threads are started as work needs them, up to ``limit``, and then kept: a server at rest costs none, one under
/// load never more than its limit. Handlers may block (a webhook waits for the log's group commit, a feed request
/// long-polls); each blocked handler holds one thread, and the jobs behind it wait for another. Each server has
/// its own pool, so the webhook's work never queues behind the read API's.
final class WorkerPool: @unchecked Sendable {
    // Sendable: the queue and counters are only touched under the pthread mutex; the pthread objects never move.
    /// The most threads the pool runs.
    let limit: Int
    private let niceness: Int32
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var jobs: [@Sendable () -> Void] = []
    private var next = 0
    private var threads = 0
    private var idle = 0
    private var stopped = false

    /// Creates a pool of at most `limit` threads (at least 1), running at `niceness` (see
    /// ``HTTPServer/Configuration/niceness``).
    init(limit: Int, niceness: Int32) {
        self.limit = max(1, limit)
        self.niceness = niceness
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

    /// Queues `job`; false when no thread could run it (none could be started and none runs).
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        pthread_mutex_lock(mutex)
        jobs.append(job)
        var spawn = false
        if idle > 0 {
            pthread_cond_signal(condition)
        } else if threads < limit {
            threads += 1
            spawn = true
        }
        pthread_mutex_unlock(mutex)
        guard spawn else { return true }
        do {
            try Threads.spawn(detached: true) { [self] in work() }
            return true
        } catch {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            threads -= 1
            guard threads == 0 else { return true }
            jobs.removeLast()
            return false
        }
    }

    /// Lets the threads end once the queue is empty; jobs submitted afterwards still run.
    func stop() {
        pthread_mutex_lock(mutex)
        stopped = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    private func work() {
        Threads.setNiceness(niceness)
        pthread_mutex_lock(mutex)
        while true {
            while next == jobs.count && !stopped {
                idle += 1
                pthread_cond_wait(condition, mutex)
                idle -= 1
            }
            if next == jobs.count {
                threads -= 1
                pthread_mutex_unlock(mutex)
                return
            }
            let job = jobs[next]
            next += 1
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            } else if next >= 256 {
                jobs.removeFirst(next)
                next = 0
            }
            pthread_mutex_unlock(mutex)
            job()
            pthread_mutex_lock(mutex)
        }
    }
}
