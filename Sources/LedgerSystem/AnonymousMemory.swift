#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Large zeroed memory straight from the kernel: for the hash tables of tens or hundreds of megabytes an index
/// writes all over, and the copies a rebuild reads. Calls go straight to `mmap`/`madvise`/`munmap`: none of them can
/// be interrupted by a signal, and a failure leaves the caller to take the allocator's memory.
///
/// (Huge pages were advised here once; a paired measurement found they gained at most 1.16× on the figures they
/// served, so they went: `docs/benchmarks.md`, "Derived structures".)
public enum AnonymousMemory {
    /// The size below which a mapping of its own is not worth it.
    public static let threshold = 2 << 20

    /// `bytes` of zeroed anonymous memory; nil when it cannot be mapped. With `populate`, every page is faulted in
    /// at once (`MADV_POPULATE_WRITE`, Linux 5.14; on older kernels pages fault in as they are first written): for
    /// memory about to be written all over, where faulting it in page by page (a read maps the shared zero page,
    /// the first write then copies it) costs more than one call.
    public static func map(_ bytes: Int, populate: Bool) -> UnsafeMutableRawBufferPointer? {
        let count = max(bytes, 1)
        guard let memory = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            memory != MAP_FAILED
        else { return nil }
        if populate { _ = madvise(memory, count, 23) }  // MADV_POPULATE_WRITE
        return UnsafeMutableRawBufferPointer(start: memory, count: count)
    }

    /// Releases what ``map(_:populate:)`` gave.
    public static func unmap(_ region: UnsafeMutableRawBufferPointer) {
        _ = munmap(region.baseAddress, region.count)
    }
}
