import LedgerStore
import LedgerSystem

/// The log's in-memory indexes: idempotency key → seq and subject key → seqs, and how far the index files cover
/// them. Built by scanning the log, or taken from the index files and brought up to the head.
struct LogIndexes {
    var keys = KeyIndex()
    var subjects = SubjectIndex()
    /// The head the index files were last written for.
    var coveredSeq: UInt64 = 0
    /// False for a reader until an index query loads or builds the indexes.
    var ready = true
    /// How many subject look-ups a reader answered from the subject index file before loading them
    /// (``EventLog/fileLookupLimit``).
    var fileLookups = 0

    /// Adds one record to both indexes.
    static func add(_ view: LogRecordView, keys: inout KeyIndex, subjects: inout SubjectIndex) {
        let seq = view.seq
        keys.insertScanned(view.idempotencyKeyBytes, seq: seq)
        var position = view.subjectsStart
        subjects.insert(seq: seq, count: view.subjectCount) { _ in
            let length = Int(view.base.le16(position))
            defer { position += 2 + length }
            return StableHash.hash(UnsafeRawBufferPointer(start: view.base + position + 2, count: length))
        }
    }

    /// Both indexes of records 1…`head`, from a scan of `segments` that checks every checksum; `progress` is told
    /// the seq reached every 65,536 records.
    static func scanning(
        _ fileSystem: any FileSystem, _ segments: [Segment], through head: UInt64,
        progress: ((UInt64) -> Void)? = nil
    ) throws(LogError) -> LogIndexes {
        let records = Int(min(head, 1 << 28))
        var keys = KeyIndex(table: HashTable64(capacity: records))
        var subjects = SubjectIndex(heads: HashTable64(capacity: records / 2))
        try SegmentReader.scan(fileSystem, segments, from: 1, through: head, checkCRC: true) { view, _, _ in
            add(view, keys: &keys, subjects: &subjects)
            if let progress, view.seq & 0xFFFF == 0 { progress(view.seq) }
            return true
        }
        return LogIndexes(keys: keys, subjects: subjects)
    }

    /// The indexes the index files hold for records 1…`covered`, their groups placed in `segments`, brought up to
    /// `head` by a scan of the records after `covered` (every checksum checked).
    static func extending(
        keys: consuming KeyIndex, subjects: consuming SubjectIndex, covered: UInt64, _ fileSystem: any FileSystem,
        _ segments: [Segment], through head: UInt64
    ) throws(LogError) -> LogIndexes {
        subjects.placeGroups(segments)
        try SegmentReader.scan(fileSystem, segments, from: covered + 1, through: head, checkCRC: true) { view, _, _ in
            add(view, keys: &keys, subjects: &subjects)
            return true
        }
        return LogIndexes(keys: keys, subjects: subjects, coveredSeq: covered)
    }

    /// The indexes of records 1…`head`: the index files' when they hold an earlier point of this log (the record
    /// they cover still has the chain hash they claim; `genesisHash` for none), brought up to `head`; else from a
    /// scan of the whole log.
    static func loading(
        _ files: IndexFiles, _ segments: [Segment], through head: UInt64, genesisHash: [UInt8]
    ) throws(LogError) -> LogIndexes {
        let fileSystem = files.fileSystem
        guard let (keys, subjects, covered, hash) = files.load(), covered <= head,
            hash
                == (covered == 0
                    ? genesisHash : (try? SegmentReader.readRecord(fileSystem, segments, seq: covered))?.hash)
        else { return try scanning(fileSystem, segments, through: head) }
        // Taken, not copied: placing the groups must not copy the postings, which the decoder put in huge pages.
        return try extending(
            keys: consume keys, subjects: consume subjects, covered: covered, fileSystem, segments, through: head)
    }
}
