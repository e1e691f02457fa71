import LedgerSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// POSIX threads for the event loops and their workers.
enum Threads {
    /// Starts a thread running `body`. A detached thread cannot be joined; a joinable one must be.
    @discardableResult
    static func spawn(detached: Bool, _ body: @escaping @Sendable () -> Void) throws(SystemError) -> pthread_t {
        do {
            // A worker verifies webhook payloads, whose JSON may nest 512 deep: not `ulimit -s`'s stack.
            return try startThread(detached: detached, body)
        } catch {
            var error = error
            error.message += "; lower the worker count or raise the process's thread limit"
            throw error
        }
    }

    /// Sets the calling thread's niceness (Linux: per thread); 0 leaves it alone. Raising it needs no privilege.
    static func setNiceness(_ niceness: Int32) {
        guard niceness != 0 else { return }
        // Glibc's module has neither gettid nor syscall: /proc/thread-self is a link to PID/task/TID.
        var link = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &link, link.count - 1)
        guard count > 0 else { return }
        let text = String(decoding: link[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = text.lastIndex(of: "/"), let thread = id_t(text[text.index(after: slash)...]) else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, niceness)
    }

    /// Waits for a joinable thread to finish.
    static func join(_ thread: pthread_t) {
        pthread_join(thread, nil)
    }
}

/// Time in the units the server needs, from `clock_gettime`.
enum Clock {
    /// Nanoseconds on the monotonic clock (for deadlines and durations).
    static func monotonicNanoseconds() -> UInt64 { SystemClock.monotonicNanoseconds() }

    /// Milliseconds on the monotonic clock.
    static func monotonicMilliseconds() -> Int {
        Int(monotonicNanoseconds() / 1_000_000)
    }

    /// Wall-clock time as seconds and milliseconds since the epoch.
    static func wallClock() -> (seconds: Int, milliseconds: Int) {
        let time = SystemClock.wallTimespec()
        return (Int(time.tv_sec), Int(time.tv_nsec / 1_000_000))
    }

    /// The broken-down UTC time of `seconds` since the epoch.
    static func utc(_ seconds: Int) -> tm {
        var value = time_t(seconds)
        var parts = tm()
        gmtime_r(&value, &parts)
        return parts
    }

    /// The current time in ISO 8601 UTC with milliseconds, e.g. `2026-03-01T00:00:00.123Z`.
    static func iso8601Now() -> String {
        let (seconds, milliseconds) = wallClock()
        let t = utc(seconds)
        return "\(pad(Int(t.tm_year) + 1900, 4))-\(pad(Int(t.tm_mon) + 1, 2))-\(pad(Int(t.tm_mday), 2))T"
            + "\(pad(Int(t.tm_hour), 2)):\(pad(Int(t.tm_min), 2)):\(pad(Int(t.tm_sec), 2)).\(pad(milliseconds, 3))Z"
    }

    /// The current time as an HTTP date (IMF-fixdate), e.g. `Sun, 01 Mar 2026 00:00:00 GMT`.
    static func httpDateNow() -> String {
        let t = utc(wallClock().seconds)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(days[Int(t.tm_wday)]), \(pad(Int(t.tm_mday), 2)) \(months[Int(t.tm_mon)]) \(Int(t.tm_year) + 1900) "
            + "\(pad(Int(t.tm_hour), 2)):\(pad(Int(t.tm_min), 2)):\(pad(Int(t.tm_sec), 2)) GMT"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
