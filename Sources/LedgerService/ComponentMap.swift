import LedgerLog
import LedgerStore
import LedgerSystem

/// Which component each record of the log belongs to, found from the records' subject keys alone (no
/// decoding). Components are numbered in the order of their first records.
struct ComponentMap {
    /// Record `seq` → its component at `seq - 1`, or -1 for a record without subject keys (in no component).
    private(set) var componentOf: [Int32] = []
    /// Component → the seq of its last record.
    private(set) var lastSeq: [UInt64] = []
    /// Component → its number of records.
    private(set) var sizes: [Int] = []

    /// Numbers the components of records whose first subject key is `firstNodes[seq - 1]` in `union`
    /// (-1: no key).
    init<Union: NodeUnion>(firstNodes: [Int32], union: inout Union) {
        var number = [Int32](repeating: -1, count: union.count)
        var componentOf = [Int32](repeating: -1, count: firstNodes.count)
        var lastSeq: [UInt64] = []
        var sizes: [Int] = []
        // In buffers: the arrays' copy-on-write checks cost more than the loop's work.
        number.withUnsafeMutableBufferPointer { number in
            componentOf.withUnsafeMutableBufferPointer { componentOf in
                for (index, node) in firstNodes.enumerated() where node >= 0 {
                    let root = Int(union.root(node))
                    if number[root] < 0 {
                        number[root] = Int32(lastSeq.count)
                        lastSeq.append(0)
                        sizes.append(0)
                    }
                    let component = Int(number[root])
                    componentOf[index] = Int32(component)
                    lastSeq[component] = UInt64(index + 1)
                    sizes[component] += 1
                }
            }
        }
        self.componentOf = componentOf
        self.lastSeq = lastSeq
        self.sizes = sizes
    }

    /// The records of every component, grouped side by side (``RecordComponents``: 4 bytes a record, where
    /// ``components`` takes an array a component). Needs fewer than 2³² records.
    var recordComponents: RecordComponents { RecordComponents(componentOf: componentOf, sizes: sizes) }

    /// The seqs of every component, ascending, the components in the order of their first records.
    var components: [[UInt64]] {
        var result = sizes.map { size -> [UInt64] in
            var seqs: [UInt64] = []
            seqs.reserveCapacity(size)
            return seqs
        }
        for (index, component) in componentOf.enumerated() where component >= 0 {
            result[Int(component)].append(UInt64(index + 1))
        }
        return result
    }
}

/// The quick hashes of the subject keys of a run of records, in seq order.
private struct KeyHashes: Sendable {
    private var hashes: [UInt64] = []
    /// Record `i`'s hashes end at `ends[i]`.
    private var ends: [Int] = []

    init(records: Int) {
        hashes.reserveCapacity(records * 3)
        ends.reserveCapacity(records)
    }

    /// The hashes kept so far.
    var count: Int { hashes.count }

    /// Keeps a hash of the current record's.
    mutating func append(_ hash: UInt64) { hashes.append(hash) }

    /// Ends the current record (its hashes are those kept since the last end).
    mutating func endRecord() { ends.append(hashes.count) }

    /// Calls `body` with each record's hashes, in order.
    func forEachRecord(_ body: (ArraySlice<UInt64>) -> Void) {
        var start = 0
        for end in ends {
            body(hashes[start..<end])
            start = end
        }
    }
}

extension Ledger {
    /// Groups the log's records into components. The file log's records are grouped by quick 64-bit hashes of
    /// their subject keys, read in place: two keys sharing a hash (rare) only join two components, which changes
    /// no answer (each component is folded on its own, and the fold sorts out owners).
    func componentMap() throws(ServiceError) -> ComponentMap {
        if let eventLog = log as? any RecordViews {
            // One sequential scan, every checksum checked (an image would cost a copy of the last segment).
            var union = HashUnion()
            var firstNodes: [Int32] = []
            try Self.mapErrors {
                try eventLog.forEachView(from: 1) { view, _, _ in
                    firstNodes.append(Self.node(of: view, in: union))
                }
            }
            return ComponentMap(firstNodes: firstNodes, union: &union)
        }
        var union = KeyUnion<String>()
        var firstNodes: [Int32] = []
        try Self.mapErrors {
            try log.forEach(from: 1) { record in
                let keys = record.subjectKeys.map { union.id(of: $0) }
                for other in keys.dropFirst() { union.union(keys[0], other) }
                firstNodes.append(keys.first ?? -1)
            }
        }
        return ComponentMap(firstNodes: firstNodes, union: &union)
    }

    /// The components of an image's records. Every frame is checked; with `checkCRC` false, only the checksums of
    /// the records without subject keys (in no component) are, for a caller that checks those of the others as it
    /// reads them again. An image of `parallelFrom` records or more with nothing to copy is read on two threads.
    static func componentMap(of image: LogImage, checkCRC: Bool, parallelFrom: UInt64 = 65_536)
        throws(ServiceError) -> ComponentMap
    {
        var union = HashUnion(expected: Int(image.headSeq) / 4)
        var firstNodes: [Int32] = []
        firstNodes.reserveCapacity(Int(image.headSeq))
        if image.copiedByteCount == 0, image.headSeq >= parallelFrom, onlineProcessorCount > 1 {
            // Nothing to wait for: two threads read the two halves' frames and hash their keys, then the keys
            // are joined here in seq order (as one thread joins them below).
            for half in try keyHashes(of: image, checkCRC: checkCRC) {
                half.forEachRecord { hashes in
                    var join = KeyJoin()
                    for hash in hashes { join.add(hash, in: union) }
                    firstNodes.append(join.first)
                }
            }
            return ComponentMap(firstNodes: firstNodes, union: &union)
        }
        try mapErrors {
            try image.forEachRecord(checkCRC: checkCRC) { view in
                let node = node(of: view, in: union)
                if node < 0, !checkCRC, !view.checksumMatches { throw image.damaged(seq: view.seq) }
                firstNodes.append(node)
            }
        }
        return ComponentMap(firstNodes: firstNodes, union: &union)
    }

    /// The components of an image's records from the index files (``EventLog/recordComponents()``), which must
    /// cover exactly the image's records: no record is read but those in no component, whose frames and checksums
    /// are checked here; the caller checks the others' as it reads them. Nil when the files cover other records,
    /// or the image still has copies to read.
    static func indexedComponents(of image: LogImage, in log: any RecordViews) throws(ServiceError) -> RecordComponents?
    {
        guard image.copiedByteCount == 0, let (components, covered) = log.recordComponents(),
            covered == image.headSeq
        else { return nil }
        for seq in components.unlisted {
            do throws(LogError) {
                _ = try image.record(seq)
            } catch {
                throw ServiceError(error)
            }
        }
        return components
    }

    /// The quick hashes of every record's subject keys, the first half of the records' read on one thread and the
    /// second half's on another; every frame checked, and the checksums as ``componentMap(of:checkCRC:)`` says.
    private static func keyHashes(of image: LogImage, checkCRC: Bool) throws(ServiceError) -> [KeyHashes] {
        let middle = image.headSeq / 2 + 1
        let halves = [1..<middle, middle..<(image.headSeq + 1)]
        return try partials(2) { (half) throws(ServiceError) -> KeyHashes in
            var hashes = KeyHashes(records: halves[half].count)
            try mapErrors {
                try image.forEachRecord(in: halves[half], checkCRC: checkCRC) { view in
                    let before = hashes.count
                    view.forEachSubjectKeyQuickHash { hashes.append($0) }
                    if hashes.count == before, !checkCRC, !view.checksumMatches { throw image.damaged(seq: view.seq) }
                    hashes.endRecord()
                }
            }
            return hashes
        }
    }

    /// The log's image (``LogImage``) with the records of its components: the index files' when they cover it
    /// (``indexedComponents(of:in:)``), else grouped while it is read (see ``componentMap(of:checkCRC:)``,
    /// checksums left to the caller); nil when the log is too large to read that way (2³² records or more, or
    /// segments to read larger than `copyLimit` bytes). Keeps 4 bytes a record once done (8 while grouping).
    static func imageAndMembers(
        of log: any RecordViews, copyLimit: Int
    ) throws(ServiceError) -> (image: LogImage, starts: [Int], members: [UInt32])? {
        guard log.head.seq < UInt64(UInt32.max) else { return nil }
        var grouped: RecordComponents?
        var image: LogImage?
        try mapErrors {
            image = try log.image(copyLimit: copyLimit) { image in
                // The index files' components when they cover the log as it is: no frame to read.
                grouped =
                    try indexedComponents(of: image, in: log)
                    ?? componentMap(of: image, checkCRC: false).recordComponents
            }
        }
        guard let image, let grouped else { return nil }
        return (image, grouped.starts, grouped.members)
    }

    /// Joins the nodes of a record's subject keys; returns the node of its first key (-1: it has none).
    @inline(__always)
    private static func node(of view: LogRecordView, in union: HashUnion) -> Int32 {
        var join = KeyJoin()
        view.forEachSubjectKeyQuickHash { join.add($0, in: union) }
        return join.first
    }
}

/// One record's subject keys joined in a ``HashUnion`` as they come: each key's node is joined to the first's.
private struct KeyJoin {
    /// The node of the record's first key (-1: none yet).
    private(set) var first: Int32 = -1

    @inline(__always)
    mutating func add(_ hash: UInt64, in union: HashUnion) {
        let id = union.id(of: hash)
        if first < 0 { first = id } else { union.union(first, id) }
    }
}
