import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// How a thread competes for the cores: how much nicer than the process it runs, and the time slice it asks the
/// scheduler for. The HTTP server's threads take their server's: the read API's run nicer, so its work yields the
/// cores to the webhook's, and the webhook's ask for short slices, so a delivery's thread gets a core soon after
/// it wakes however busy the machine is.
public struct ThreadPriority: Hashable, Sendable {
    /// How much nicer than the process's main thread (0 to 19; on Linux niceness is per thread). Raising it needs no
    /// privilege: whatever niceness the process was started with (`nice -n 5 ledger serve` puts 19 at 19, 5 at 10).
    public var niceness: Int32
    /// The time slice asked for, in microseconds, or 0 for the kernel's default. Linux 6.12 and later (EEVDF) pick
    /// a waking thread with a shorter slice sooner, at the cost of more preemption, and clamp it to 100 µs…100 ms;
    /// earlier kernels keep their default.
    public var sliceMicroseconds: Int

    /// Creates a priority; the defaults leave a thread as the process is.
    public init(niceness: Int32 = 0, sliceMicroseconds: Int = 0) {
        self.niceness = niceness
        self.sliceMicroseconds = sliceMicroseconds
    }

    /// Applies the priority to the calling thread, as far as the kernel allows: a kernel without custom slices,
    /// or a niceness the process may not take, leaves the thread as it was.
    public func apply() {
        if niceness > 0 { Self.setNiceness(niceness) }
        if sliceMicroseconds > 0 { _ = ledger_set_thread_slice(UInt64(sliceMicroseconds) * 1_000) }
    }

    /// The calling thread's slice as the kernel reports it, in microseconds (the default's length when none was
    /// asked for), or nil where the kernel does not say.
    public static var currentSliceMicroseconds: Int? {
        let nanoseconds = ledger_thread_slice()
        return nanoseconds > 0 ? Int(nanoseconds / 1_000) : nil
    }

    private static func setNiceness(_ niceness: Int32) {
        let thread = id_t(ledger_thread_id())
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        errno = 0
        // The process id names the main thread: its niceness is the process's, whatever this thread inherited.
        let base = getpriority(which, id_t(getpid()))
        guard errno == 0 else { return }
        _ = setpriority(which, thread, min(19, base + niceness))
    }
}
