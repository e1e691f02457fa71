import LedgerSystem

/// One open segment file and where its records are.
struct Segment: Sendable {
    /// The file name, e.g. `00000000000000000001.seg`.
    var name: String
    /// The seq of its first record.
    var firstSeq: UInt64
    /// The open descriptor (read-only for readers).
    var fd: FileDescriptor
    /// The logical end: the byte after its last valid record.
    var size: Int64
    /// The offset of each record; record `firstSeq + i` is at `offsets[i]`.
    var offsets: [UInt32]

    /// The seq of its last record, or `firstSeq - 1` when it holds none.
    var lastSeq: UInt64 { firstSeq &+ UInt64(offsets.count) &- 1 }
}
