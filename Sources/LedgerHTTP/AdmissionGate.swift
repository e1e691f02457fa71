import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A counting semaphore with a bounded queue, for work that must not take every thread and every core (the
/// feed's pages, a history): at most ``concurrency`` requests run the work at once, at most ``queueLimit`` more
/// wait their turn (each for ``queueTimeout`` at most), and one more is answered 503 with `Retry-After` at once.
///
/// Use it around the heavy part of a handler (``run(_:)``), or as a middleware on a route.
public final class AdmissionGate: HTTPMiddleware, @unchecked Sendable {
    // Sendable: the counters are only touched under the pthread mutex; the pthread objects never move.
    /// How many may run the work at once.
    public let concurrency: Int
    /// How many may wait for a turn; one more is refused at once.
    public let queueLimit: Int
    /// How long one waits for its turn before it is refused.
    public let queueTimeout: Duration
    /// What a refusal's message calls the work, e.g. `heavy reads`.
    public let name: String
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var running = 0
    private var waiting = 0

    /// Creates a gate; `concurrency` and `queueLimit` are at least 1 and 0.
    public init(
        name: String = "heavy reads", concurrency: Int, queueLimit: Int, queueTimeout: Duration = .seconds(5)
    ) {
        self.name = name
        self.concurrency = max(1, concurrency)
        self.queueLimit = max(0, queueLimit)
        self.queueTimeout = queueTimeout
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// How many run the work now, and how many wait.
    public var load: (running: Int, waiting: Int) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return (running, waiting)
    }

    /// Runs `body` once a turn is free.
    ///
    /// - Throws: ``HTTPError`` 503 `UNAVAILABLE` with `Retry-After: 1` when the queue is full or the turn did not
    ///   come within ``queueTimeout``; whatever `body` throws.
    public func run<T>(_ body: () throws -> T) throws -> T {
        try enter()
        defer { leave() }
        return try body()
    }

    public func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        try run { try next(request) }
    }

    private func enter() throws(HTTPError) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if running < concurrency {
            running += 1
            return
        }
        guard waiting < queueLimit else { throw refusal("\(running) running and \(waiting) waiting") }
        waiting += 1
        defer { waiting -= 1 }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + queueTimeout.milliseconds % 1000 * 1_000_000
        deadline.tv_sec += queueTimeout.milliseconds / 1000 + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        while running >= concurrency {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT && running >= concurrency {
                throw refusal("none was free within \(queueTimeout)")
            }
        }
        running += 1
    }

    private func leave() {
        pthread_mutex_lock(mutex)
        running -= 1
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    private func refusal(_ detail: String) -> HTTPError {
        var error = HTTPError(
            .serviceUnavailable, code: .unavailable,
            message: "too many \(name) at once (\(detail), at most \(concurrency) run and \(queueLimit) wait); "
                + "retry shortly")
        error.headers.add("Retry-After", "1")
        return error
    }
}
