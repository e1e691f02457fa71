#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Large anonymous memory backed by transparent huge pages (2 MiB) where the kernel can: for the tables and arrays
/// of tens or hundreds of megabytes that queries read at random (the subject index, the key index) and the copies
/// a rebuild reads. With 4 KiB pages each random read of such memory also misses the TLB and walks page tables that
/// are themselves too large to stay cached (and, in a virtual machine, the host's tables as well); a 10M-record
/// log's grouped subject postings alone span some 60,000 small pages (README, "Query p99").
///
/// The kernel is only advised (`MADV_HUGEPAGE`): where transparent huge pages are off, or no huge page is free,
/// the memory is in small pages, as without the advice. Calls go straight to `mmap`/`madvise`/`munmap`: none of
/// them can be interrupted by a signal, and a failure leaves the caller to take the allocator's memory.
public enum HugePages {
    /// The size of a huge page, and the size below which advising one is not worth a mapping of its own.
    public static let size = 2 << 20

    /// `bytes` of zeroed anonymous memory, huge pages advised; nil when it cannot be mapped. With `populate`,
    /// every page is faulted in at once (`MADV_POPULATE_WRITE`, Linux 5.14; on older kernels pages fault in as
    /// they are first written): for memory about to be written all over, where faulting it in page by page (a
    /// read maps the shared zero page, the first write then copies it) costs more than one call.
    public static func map(_ bytes: Int, populate: Bool) -> UnsafeMutableRawBufferPointer? {
        let count = max(bytes, 1)
        guard let memory = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            memory != MAP_FAILED
        else { return nil }
        _ = madvise(memory, count, 14)  // MADV_HUGEPAGE
        if populate { _ = madvise(memory, count, 23) }  // MADV_POPULATE_WRITE
        return UnsafeMutableRawBufferPointer(start: memory, count: count)
    }

    /// Releases what ``map(_:populate:)`` gave.
    public static func unmap(_ region: UnsafeMutableRawBufferPointer) {
        _ = munmap(region.baseAddress, region.count)
    }

    /// Advises huge pages for the whole 2 MiB-aligned spans inside `region` (nothing when it holds none): for memory
    /// another allocator gave, before it is first written, so that its first writes take huge pages.
    public static func advise(_ region: UnsafeMutableRawBufferPointer) {
        guard let base = region.baseAddress else { return }
        let start = (Int(bitPattern: base) + size - 1) & ~(size - 1)
        let end = (Int(bitPattern: base) + region.count) & ~(size - 1)
        guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(aligned, end - start, 14)  // MADV_HUGEPAGE
    }
}

extension Array where Element: BitwiseCopyable {
    /// `count` copies of `value` in storage whose huge pages (``HugePages``) are advised before it is first
    /// written; below 8 MiB (a few huge pages: not worth splitting the allocator's mapping), an array like any other.
    public init(hugePagesRepeating value: Element, count: Int) {
        guard count * MemoryLayout<Element>.stride >= 4 * HugePages.size else {
            self.init(repeating: value, count: count)
            return
        }
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
            buffer.initialize(repeating: value)
            initialized = count
        }
    }
}
