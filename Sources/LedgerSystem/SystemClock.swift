#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Every clock the ledger reads, in one place (`clock_gettime`): the wall clock for what it records and
/// answers, the monotonic clock for durations and deadlines, and CPU clocks for measurements.
public enum SystemClock {
    /// Milliseconds since the epoch on the wall clock (`CLOCK_REALTIME`): when a record is appended, "now".
    @Sendable public static func wallMilliseconds() -> Int64 {
        let time = read(CLOCK_REALTIME)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// The wall clock as a `timespec`, for absolute deadlines (`pthread_cond_timedwait`).
    public static func wallTimespec() -> timespec { read(CLOCK_REALTIME) }

    /// The wall clock `microseconds` from now, as an absolute deadline for `pthread_cond_timedwait`.
    public static func wallDeadline(microseconds: Int) -> timespec {
        let now = read(CLOCK_REALTIME)
        let nanoseconds = Int(now.tv_nsec) + (microseconds % 1_000_000) * 1_000
        return timespec(
            tv_sec: now.tv_sec + microseconds / 1_000_000 + nanoseconds / 1_000_000_000,
            tv_nsec: nanoseconds % 1_000_000_000)
    }

    /// Nanoseconds on the monotonic clock (`CLOCK_MONOTONIC`): deadlines and durations.
    @Sendable public static func monotonicNanoseconds() -> UInt64 {
        let time = read(CLOCK_MONOTONIC)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Milliseconds on the monotonic clock: the HTTP server's deadlines.
    @Sendable public static func monotonicMilliseconds() -> Int { Int(monotonicNanoseconds() / 1_000_000) }

    /// Seconds on the monotonic clock, for latencies.
    @Sendable public static func monotonicSeconds() -> Double { seconds(read(CLOCK_MONOTONIC)) }

    /// Seconds of CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`).
    public static func threadCPUSeconds() -> Double { seconds(read(CLOCK_THREAD_CPUTIME_ID)) }

    /// Seconds of CPU time the whole process has used, all its threads (`CLOCK_PROCESS_CPUTIME_ID`).
    public static func processCPUSeconds() -> Double { seconds(read(CLOCK_PROCESS_CPUTIME_ID)) }

    private static func read(_ clock: clockid_t) -> timespec {
        var time = timespec()
        clock_gettime(clock, &time)
        return time
    }

    private static func seconds(_ time: timespec) -> Double { Double(time.tv_sec) + Double(time.tv_nsec) / 1e9 }
}
