#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A mutex with a condition variable (pthread), for the group commit's leader/follower hand-off
/// (``GroupCommitQueue``) and other waits on shared state.
///
/// `Synchronization.Mutex` has no condition variable, so this wraps the pthread pair. The storage is
/// allocated once and never moves, as pthread requires.
public final class ConditionLock: @unchecked Sendable {
    // Sendable: the pthread objects are designed for use from many threads; they are only touched through
    // pthread calls.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Creates an unlocked mutex and its condition.
    public init() {
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

    /// Takes the lock.
    public func lock() { pthread_mutex_lock(mutex) }

    /// Releases the lock.
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Releases the lock, sleeps until signalled, and takes the lock again. Callers re-check their condition.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Like ``wait()``, but gives up at `deadline` (CLOCK_REALTIME); returns false on timeout.
    public func wait(until deadline: timespec) -> Bool {
        var deadline = deadline
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }

    /// Wakes every waiter.
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// Wakes one waiter (call holding the lock).
    public func signal() { pthread_cond_signal(condition) }

    /// Runs `body` holding the lock.
    @inline(__always)
    public func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
