#if canImport(Glibc)
    import Glibc
#endif

/// How the C heap behaves for batch work.
public enum HeapTuning {
    /// For a process that verifies and appends batches of notifications (`ledger ingest`, the demo): each batch
    /// allocates and frees tens of megabytes (the bodies, their decoded payloads). By default glibc hands the top
    /// of the heap back to the kernel after a batch and takes it again for the next, paying a page fault and a
    /// zero fill per page each time (about a tenth of the ingest's CPU time here). This keeps up to 256 MiB of
    /// freed heap and grows the heap 64 MiB at a time. Not for long-running servers: their resident size would
    /// stay at its peak. Does nothing where the C library has no `mallopt`.
    public static func keepHeapForBatches() {
        // glibc's `mallopt` and its parameters (malloc.h: M_TRIM_THRESHOLD -1, M_TOP_PAD -2), which the Glibc
        // module does not import.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(-1, 256 << 20)
        _ = mallopt(-2, 64 << 20)
    }

    /// For a long-running server with many threads (`ledger serve`): at most two malloc arenas (glibc makes up to
    /// eight per core, each keeping what its threads freed), and allocations of 256 KiB or more (a feed page, a
    /// history, a response being sent) mapped and unmapped on their own, so that memory a burst took returns to
    /// the kernel (glibc otherwise raises that threshold after the first large free, up to 32 MiB, and keeps such
    /// blocks in the heap). Does nothing where the C library has no `mallopt`.
    public static func boundHeapForServers() {
        // malloc.h: M_MMAP_THRESHOLD -3, M_ARENA_MAX -8.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(-8, 2)
        _ = mallopt(-3, 256 << 10)
    }
}
