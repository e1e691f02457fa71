import LedgerSystem
import Synchronization

/// Read-only mappings of a log's sealed segments, so that reading a record there costs no system call.
///
/// Only a segment that is not the last of the log is mapped, and only up to its logical end: by the format's
/// rules (Events/README.md, "Writing" and "Recovery on open") nothing ever shrinks a sealed segment — a failed
/// batch and a torn-tail repair cut only the last segment, and damage anywhere else is refused, never cut — so
/// no mapped byte can vanish under a reader (which would be a SIGBUS). The tail segment keeps `pread`. Every
/// record read from a mapping is still checked against its CRC. A mapping is made on first use and released
/// when the log is deinitialised, never by ``EventLog/close()``, so a read racing a close cannot touch an
/// unmapped page. Mapping fills the segment's page tables at once (`MAP_POPULATE`), so random reads do not fault
/// page by page; it is done outside the lock. A file system that does not map (``FileSystem/mapReadOnly(_:count:)`` gives nil) or a failed
/// `mmap` leaves the segment to `pread`.
final class SegmentMaps: Sendable {
    /// A mapped region, by address (the pointer itself is not `Sendable`).
    private struct Region: Sendable {
        let address: UInt
        let count: Int
    }

    /// By the first seq of the segment; nil: mapping failed or declined, read with `pread`.
    private let regions = Mutex<[UInt64: Region?]>([:])

    /// The mapping of `segment`, a sealed segment of the log (not its last), made on first use; nil when it
    /// cannot be mapped.
    func region(of segment: Segment, _ fileSystem: any FileSystem) -> UnsafeRawBufferPointer? {
        if let known = regions.withLock({ $0[segment.firstSeq] }) { return Self.buffer(known) }
        // Mapped outside the lock: filling a segment's page tables takes a while (longer when it must be read
        // from the disk), and readers of the segments mapped already must not wait for it.
        var made: Region?
        if segment.size > 0, let mapped = try? fileSystem.mapReadOnly(segment.fd, count: Int(segment.size)),
            let base = mapped.baseAddress
        {
            made = Region(address: UInt(bitPattern: base), count: mapped.count)
        }
        let kept = regions.withLock { regions -> Region? in
            if let known = regions[segment.firstSeq] { return known }
            regions[segment.firstSeq] = made
            return made
        }
        if let made, kept?.address != made.address {
            fileSystem.unmap(
                UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: made.address), count: made.count))
        }
        return Self.buffer(kept)
    }

    private static func buffer(_ region: Region?) -> UnsafeRawBufferPointer? {
        guard let region, let base = UnsafeRawPointer(bitPattern: region.address) else { return nil }
        return UnsafeRawBufferPointer(start: base, count: region.count)
    }

    /// Releases every mapping (when the log is deinitialised: no reader can be using one).
    func unmapAll(_ fileSystem: any FileSystem) {
        regions.withLock { regions in
            for case let region? in regions.values {
                fileSystem.unmap(
                    UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: region.address), count: region.count))
            }
            regions.removeAll()
        }
    }
}
