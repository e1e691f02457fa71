import LedgerStore
import LedgerSystem

/// One cluster file: a derived copy of the log's records `from + 1 … through`, frame for frame, each record
/// beside the other records of its **home** subject (the first subject key it lists), so that reading a
/// subject's records touches a few pages of one run instead of one page per record scattered over the log.
///
/// Layout (little-endian; `Events/README.md`, "Cluster files"):
///
///     header (96 bytes): magic `LEDGRCLU` (8), version 1 (1), zero (7), from (8), through (8),
///                        the chain hash of record `through` (32), slot count (8, a power of two),
///                        data length (8), run count (8), CRC-32C of bytes 0..<88 and the table (4), zero (4)
///     table: slot count × (home key hash (8, 0 stored as 1; 0: empty slot), run offset in the data (8))
///     data:  runs in ascending hash order, each: hash (8), length of its frames (8), then the frames of every
///            record of that home hash in the range, ascending by seq, exactly as the log holds them
///
/// A cluster file is never the truth. Its header and table are checked when it is loaded (and it is ignored
/// when they fail, or when record `through` of the log has another chain hash); each frame carries the log's
/// own CRC-32C and is checked when read; a frame that fails, or a run that does not hold a record the subject
/// index lists, sends the reader to the log itself.
struct SubjectCluster: @unchecked Sendable {
    // @unchecked Sendable: `region` is a read-only mapping, unmapped only when the last copy of this value goes
    // (`mapping` owns it).

    /// The seq after which the file's records start.
    let from: UInt64
    /// The seq of its last record.
    let through: UInt64
    private let mapping: ClusterMapping
    private var region: UnsafeRawBufferPointer { mapping.region }
    private let slotMask: Int
    private let dataStart: Int
    private let dataLength: Int

    static let magic = Array("LEDGRCLU".utf8)
    static let version: UInt8 = 1
    static let headerSize = 96
    static let slotSize = 16
    static let runHeaderSize = 16

    /// The file's name for records `from + 1 … through`: sorted by name, the files sort by range.
    static func fileName(from: UInt64, through: UInt64) -> String {
        "cluster-\(Self.padded(from))-\(Self.padded(through))"
    }

    /// The range a file name gives, or nil when it is not a cluster file's name.
    static func range(ofFileName name: String) -> (from: UInt64, through: UInt64)? {
        let parts = name.split(separator: "-")
        guard parts.count == 3, parts[0] == "cluster", parts[1].count == 20, parts[2].count == 20,
            let from = UInt64(parts[1]), let through = UInt64(parts[2]), from < through
        else { return nil }
        return (from, through)
    }

    private static func padded(_ value: UInt64) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    /// The cluster file `mapping` maps, when its header and table are intact and it covers exactly records
    /// `from + 1 … through` ending with chain hash `hash`; nil otherwise.
    init?(mapping: ClusterMapping, from: UInt64, through: UInt64, hash: UnsafeRawBufferPointer) {
        let region = mapping.region
        guard region.count >= Self.headerSize, let base = region.baseAddress,
            region[0..<8].elementsEqual(Self.magic), region[8] == Self.version,
            base.le64(16) == from, base.le64(24) == through, region[32..<64].elementsEqual(hash)
        else { return nil }
        let slots = base.le64(64)
        let dataLength = base.le64(72)
        guard slots > 0, slots & (slots - 1) == 0, slots <= UInt64(region.count / Self.slotSize) else { return nil }
        let dataStart = Self.headerSize + Int(slots) * Self.slotSize
        guard dataStart <= region.count, dataLength == UInt64(region.count - dataStart) else { return nil }
        let checked = CRC32C.update(
            CRC32C.update(0, UnsafeRawBufferPointer(rebasing: region[0..<88])),
            UnsafeRawBufferPointer(rebasing: region[Self.headerSize..<dataStart]))
        guard checked == base.le32(88) else { return nil }
        self.from = from
        self.through = through
        self.mapping = mapping
        self.slotMask = Int(slots) - 1
        self.dataStart = dataStart
        self.dataLength = Int(dataLength)
    }

    /// The chain hash of record `through`, as the header holds it.
    var throughHash: [UInt8] { Array(region[32..<64]) }

    /// How many records the file's range spans.
    var recordSpan: UInt64 { through - from }

    /// Every run in data order (ascending hash): its hash and its frames. Nil when the data does not parse into
    /// runs that end exactly where the data ends with rising hashes (the table's checksum does not cover the data).
    func runs() -> [(hash: UInt64, frames: UnsafeRawBufferPointer)]? {
        var runs: [(hash: UInt64, frames: UnsafeRawBufferPointer)] = []
        let base = region.baseAddress!
        var at = dataStart
        let end = dataStart + dataLength
        while at < end {
            guard end - at >= Self.runHeaderSize else { return nil }
            let hash = base.le64(at)
            let length = base.le64(at + 8)
            guard length <= UInt64(end - at - Self.runHeaderSize), runs.last.map({ $0.hash < hash }) ?? true else {
                return nil
            }
            let frames = at + Self.runHeaderSize
            runs.append((hash, UnsafeRawBufferPointer(rebasing: region[frames..<(frames + Int(length))])))
            at = frames + Int(length)
        }
        return runs
    }

    /// Whether the file holds record `seq`'s range.
    @inline(__always)
    func covers(_ seq: UInt64) -> Bool { seq > from && seq <= through }

    /// The frames of the run of home hash `hash` (records of every home key with that hash), or nil when the
    /// file has none or its run is out of bounds.
    func run(hash: UInt64) -> UnsafeRawBufferPointer? {
        let key = hash == 0 ? 1 : hash
        let base = region.baseAddress!
        var slot = Int(truncatingIfNeeded: key) & slotMask
        for _ in 0...slotMask {
            let at = Self.headerSize + slot * Self.slotSize
            let stored = base.le64(at)
            if stored == 0 { return nil }
            if stored == key {
                let offset = base.le64(at + 8)
                guard dataLength >= Self.runHeaderSize, offset <= UInt64(dataLength - Self.runHeaderSize) else {
                    return nil
                }
                let start = dataStart + Int(offset)
                let length = base.le64(start + 8)
                guard base.le64(start) == key,
                    length <= UInt64(dataLength - Int(offset) - Self.runHeaderSize)
                else { return nil }
                let frames = start + Self.runHeaderSize
                return UnsafeRawBufferPointer(rebasing: region[frames..<(frames + Int(length))])
            }
            slot = (slot + 1) & slotMask
        }
        return nil
    }
}

extension SubjectCluster {
    /// The records of `seqs` (ascending) that the runs of home hash `hash` in `clusters` hold intact (their
    /// checksums checked): element `i` is record `seqs[i]`, or nil where the clusters lack it. Nil when no
    /// cluster holds any of them.
    static func records(_ seqs: [UInt64], hash: UInt64, in clusters: [SubjectCluster]) -> [LogRecordView?]? {
        guard let first = seqs.first, let last = seqs.last, let covered = clusters.last?.through, first <= covered
        else { return nil }
        var found: [LogRecordView?]?
        for cluster in clusters where cluster.through >= first && cluster.from < last {
            guard let run = cluster.run(hash: hash), var at = run.baseAddress else { continue }
            let end = at + run.count
            var position = seqs.partitioningIndex { $0 > cluster.from }
            while position < seqs.count, seqs[position] <= cluster.through, end - at >= LogFormat.frameHeaderSize {
                let frameSize = LogFormat.frameHeaderSize + Int(at.le32(0))
                guard frameSize >= LogFormat.frameHeaderSize + LogFormat.minBodySize, frameSize <= end - at else {
                    break  // a damaged run: what is left is read from the log
                }
                let seq = at.le64(10)
                while position < seqs.count, seqs[position] < seq { position += 1 }
                if position < seqs.count, seqs[position] == seq,
                    case .record(let view) = RecordCodec.parse(at, available: frameSize), view.seq == seq,
                    view.frameSize == frameSize
                {
                    if found == nil { found = [LogRecordView?](repeating: nil, count: seqs.count) }
                    found![position] = view
                    position += 1
                }
                at += frameSize
            }
        }
        return found
    }

    /// The bytes of a cluster file's header and table, for runs of the given hashes at the given data offsets
    /// (hashes already stored as 1 where they were 0), whose data is `dataLength` bytes.
    static func headerAndTable(
        from: UInt64, through: UInt64, hash: [UInt8], runs: [(hash: UInt64, offset: UInt64)], dataLength: UInt64
    ) -> [UInt8] {
        var slots = 16
        while slots < runs.count * 2 { slots <<= 1 }
        var table = [UInt64](repeating: 0, count: slots * 2)
        let mask = slots - 1
        for run in runs {
            var slot = Int(truncatingIfNeeded: run.hash) & mask
            while table[2 * slot] != 0 { slot = (slot + 1) & mask }
            table[2 * slot] = run.hash
            table[2 * slot + 1] = run.offset
        }
        var bytes = magic
        bytes.reserveCapacity(headerSize + slots * slotSize)
        bytes.append(version)
        bytes.append(contentsOf: repeatElement(0, count: 7))
        bytes.appendLE(from)
        bytes.appendLE(through)
        bytes.append(contentsOf: hash.count == 32 ? hash : [UInt8](repeating: 0, count: 32))
        bytes.appendLE(UInt64(slots))
        bytes.appendLE(dataLength)
        bytes.appendLE(UInt64(runs.count))
        let headerEnd = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 8))  // CRC and zero, filled below
        for word in table { bytes.appendLE(word) }
        let crc = bytes.withUnsafeBytes { all in
            CRC32C.update(
                CRC32C.update(0, UnsafeRawBufferPointer(rebasing: all[0..<headerEnd])),
                UnsafeRawBufferPointer(rebasing: all[headerSize...]))
        }
        withUnsafeBytes(of: crc.littleEndian) { word in
            for (index, byte) in word.enumerated() { bytes[headerEnd + index] = byte }
        }
        return bytes
    }
}

/// A cluster file's read-only mapping, released when the last ``SubjectCluster`` holding it goes: a file a merge
/// replaced and deleted frees its disk space once no query reads it any more.
final class ClusterMapping: @unchecked Sendable {
    // @unchecked Sendable: immutable; the region is read-only.
    let region: UnsafeRawBufferPointer
    private let fileSystem: any FileSystem

    init(region: UnsafeRawBufferPointer, fileSystem: any FileSystem) {
        self.region = region
        self.fileSystem = fileSystem
    }

    deinit { fileSystem.unmap(region) }
}
