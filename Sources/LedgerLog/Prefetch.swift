import CCPU

/// Asks the CPU to start loading every cache line of `bytes` and returns at once: the loads go on while the
/// caller works, so the cache misses of records scattered over the log overlap instead of coming one at a time.
/// A hint only: it reads nothing the caller can see and cannot fault.
@inline(__always)
func prefetchCacheLines(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
        ledger_prefetch(base + offset)
        offset += 64
    }
}

/// ``prefetchCacheLines(_:)`` for the one line holding `address`.
@inline(__always)
func prefetchCacheLine(_ address: UnsafeRawPointer) {
    ledger_prefetch(address)
}
