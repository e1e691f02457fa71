/// The leader's reusable memory for one batch's encoded frames: one contiguous block, kept between batches so a
/// batch neither allocates nor faults in fresh pages, and handed to the file with one write per chunk.
///
/// Used by one leader at a time (the group commit takes it out of the state while it writes).
final class FrameBuffer: @unchecked Sendable {
    // @unchecked Sendable: only the current leader touches it, and leaders are serialised by the log's lock.
    private(set) var base: UnsafeMutableRawPointer
    private(set) var capacity: Int

    /// A buffer of `capacity` bytes.
    init(capacity: Int = 1 << 16) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 64)
    }

    /// Makes room for `count` bytes (the previous contents are not kept) and returns the start.
    func prepare(_ count: Int) -> UnsafeMutableRawPointer {
        if count > capacity {
            base.deallocate()
            capacity = max(count, capacity * 2)
            base = .allocate(byteCount: capacity, alignment: 64)
        }
        return base
    }

    /// Frees a buffer that grew past `limit` bytes (a rare huge batch), keeping a small one.
    func shrink(above limit: Int) {
        guard capacity > limit else { return }
        base.deallocate()
        capacity = 1 << 16
        base = .allocate(byteCount: capacity, alignment: 64)
    }

    deinit { base.deallocate() }
}
