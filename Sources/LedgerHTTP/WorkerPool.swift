import LedgerSystem

/// A fixed-size pool of threads that run the handlers (verification, appends, queries) for one server's event
/// loop, jobs first in, first out.
///
/// Threads are started as work needs them, up to ``limit``, and then kept: a server at rest costs none, one under
/// load never more than its limit. Handlers may block (a webhook waits for the log's group commit, a feed request
/// long-polls); each blocked handler holds one thread, and the jobs behind it wait for another. Each server has
/// its own pool, so the webhook's work never queues behind the read API's.
final class WorkerPool: @unchecked Sendable {
    // Sendable: the queue and counters are only touched holding `lock`.
    /// The most threads the pool runs.
    let limit: Int
    private let priority: ThreadPriority
    private let lock = ConditionLock()
    private var jobs: [@Sendable () -> Void] = []
    private var next = 0
    private var threads = 0
    private var idle = 0
    private var stopped = false

    /// Creates a pool of at most `limit` threads (at least 1), running at `priority` (see
    /// ``HTTPServer/Configuration/priority``).
    init(limit: Int, priority: ThreadPriority) {
        self.limit = max(1, limit)
        self.priority = priority
    }

    /// Queues `job`; false when no thread could run it (none could be started and none runs).
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        lock.lock()
        jobs.append(job)
        var spawn = false
        if idle > 0 {
            lock.signal()
        } else if threads < limit {
            threads += 1
            spawn = true
        }
        lock.unlock()
        guard spawn else { return true }
        do {
            try startThread(detached: true) { [self] in work() }
            return true
        } catch {
            lock.lock()
            defer { lock.unlock() }
            threads -= 1
            guard threads == 0 else { return true }
            jobs.removeLast()
            return false
        }
    }

    /// Lets the threads end once the queue is empty; jobs submitted afterwards still run.
    func stop() {
        lock.lock()
        stopped = true
        lock.broadcast()
        lock.unlock()
    }

    private func work() {
        priority.apply()
        lock.lock()
        while true {
            while next == jobs.count && !stopped {
                idle += 1
                lock.wait()
                idle -= 1
            }
            if next == jobs.count {
                threads -= 1
                lock.unlock()
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
            lock.unlock()
            job()
            lock.lock()
        }
    }
}
