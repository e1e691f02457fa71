import LedgerStore
import LedgerSystem

/// Where every record of the log starts, as of a checkpoint: the content of the derived file `positions.idx`.
///
/// A reader's open takes the segments it lists from here instead of walking them (see
/// ``LogWalk/run(_:_:environment:writable:chainFrom:trusting:onRecord:)``): it checks each listed segment's last
/// record in place (frame, checksum, seq, and the chain hash listed for it, so the file is this history's) and
/// walks only what follows. The records it did not walk are checked when they are read (every read checks the
/// record's frame, seq and checksum; a wrong position reads as damage, never as another record), and `verify`
/// walks them all.
///
/// Layout (little-endian): segment count `n` (u64), then `n` × (first seq u64, record count `c` u64, logical
/// end u64, the chain hash of its last record (32), `c` × record offset u32). The segments are consecutive from
/// seq 1, each holds at least one record, its offsets rise from the segment header's end, and the last record
/// listed is the file's covered seq, with the file's hash.
struct RecordPositions: Sendable {
    /// One segment's records.
    struct Entry: Sendable {
        var firstSeq: UInt64
        /// The byte after its last record.
        var size: Int64
        /// The chain hash of its last record.
        var lastHash: [UInt8]
        var offsets: [UInt32]

        var lastSeq: UInt64 { firstSeq + UInt64(offsets.count) - 1 }
    }

    var entries: [Entry]

    /// The last record listed (0: none).
    var lastSeq: UInt64 { entries.last?.lastSeq ?? 0 }

    /// The positions of the records in `segments` up to `headSeq`, whose chain hash is `headHash`; each other
    /// segment's last hash is read from its last record.
    init(_ segments: [Segment], headSeq: UInt64, headHash: [UInt8], fileSystem: any FileSystem) throws(LogError) {
        entries = []
        for segment in segments where !segment.offsets.isEmpty && segment.firstSeq <= headSeq {
            let lastSeq = min(segment.lastSeq, headSeq)
            let count = Int(lastSeq - segment.firstSeq + 1)
            let size = segment.lastSeq <= headSeq ? segment.size : Int64(segment.offsets[count])
            let hash =
                lastSeq == headSeq ? headHash : try SegmentReader.readRecord(fileSystem, segments, seq: lastSeq).hash
            entries.append(
                Entry(firstSeq: segment.firstSeq, size: size, lastHash: hash, offsets: Array(segment.offsets[..<count]))
            )
        }
    }

    private init(entries: [Entry]) { self.entries = entries }

    /// The persisted form.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + entries.reduce(0) { $0 + 56 + 4 * $1.offsets.count })
        bytes.appendLE(UInt64(entries.count))
        for entry in entries {
            bytes.appendLE(entry.firstSeq)
            bytes.appendLE(UInt64(entry.offsets.count))
            bytes.appendLE(UInt64(entry.size))
            bytes.append(contentsOf: entry.lastHash)
            entry.offsets.withUnsafeBytes { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// Reads the persisted form; nil when it is malformed or breaks a rule of the layout.
    static func decode(_ bytes: [UInt8]) -> RecordPositions? {
        bytes.withUnsafeBytes { raw -> RecordPositions? in
            var reader = ByteReader(raw)
            guard let count = reader.u64(), count <= UInt64(raw.count / 56) else { return nil }
            var entries: [Entry] = []
            var nextSeq: UInt64 = 1
            for _ in 0..<count {
                guard let firstSeq = reader.u64(), firstSeq == nextSeq, let records = reader.u64(), records > 0,
                    records <= UInt64(raw.count / 4), let size = reader.u64(), size <= UInt64(UInt32.max) + 1,
                    let hash = reader.bytes(32), let offsets = reader.array(UInt32.self, count: Int(records))
                else { return nil }
                var previous = Int64(LogFormat.segmentHeaderSize) - 1
                for offset in offsets {
                    guard Int64(offset) > previous else { return nil }
                    previous = Int64(offset)
                }
                guard offsets[0] == UInt32(LogFormat.segmentHeaderSize), Int64(size) > previous else { return nil }
                entries.append(Entry(firstSeq: firstSeq, size: Int64(size), lastHash: Array(hash), offsets: offsets))
                nextSeq = firstSeq + records
            }
            return reader.atEnd ? RecordPositions(entries: entries) : nil
        }
    }
}
