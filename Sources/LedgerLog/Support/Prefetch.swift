import CCPU

/// Asks the CPU to start loading every cache line `bytes` overlap and returns at once: the loads go on while the
/// caller works, so the cache misses of records scattered over the log overlap instead of coming one at a time.
/// A hint only: it reads nothing the caller can see and cannot fault.
@inline(__always)
func prefetchCacheLines(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    // From the line holding the first byte: a range that starts inside a line and ends inside another overlaps
    // one line more than its length in lines.
    var line = base - Int(UInt(bitPattern: base) & 63)
    let end = base + bytes.count
    while line < end {
        ledger_prefetch(line)
        line += 64
    }
}

/// ``prefetchCacheLines(_:)`` for the one line holding `address`.
@inline(__always)
func prefetchCacheLine(_ address: UnsafeRawPointer) {
    ledger_prefetch(address)
}
