import LedgerSystem

/// The postings at the start of a subject index file's content (`index/subjects.idx`, see `Events/README.md`),
/// read in place: posting `i`'s record seq and link. The one reader of that layout, for the rebuild's grouping
/// (``SubjectLinks``) and the index's load (``SubjectIndex/decode(_:)``).
struct SubjectPostings {
    /// Posting `i`'s record seq (unaligned little-endian u64s in the file's memory).
    private let seqs: UnsafeRawPointer
    /// Posting `i`'s link: the index + 1 of the same subject's previous posting (0: none).
    private let links: UnsafeRawPointer
    /// How many postings there are.
    let count: Int

    /// The postings `content` starts with; nil when it is too short for the count it states. Neither the seqs
    /// nor the links are checked.
    init?(_ content: UnsafeRawBufferPointer) {
        guard content.count >= 8, let base = content.baseAddress else { return nil }
        let count = Int(clamping: UInt64(littleEndian: base.loadUnaligned(as: UInt64.self)))
        guard count <= (content.count - 8) / 12 else { return nil }
        seqs = base + 8
        links = base + 8 + 8 * count
        self.count = count
    }

    /// The bytes the count and the postings take: the heads follow.
    var byteCount: Int { 8 + 12 * count }

    /// Posting `index`'s record seq.
    @inline(__always)
    func seq(_ index: Int) -> UInt64 {
        UInt64(littleEndian: seqs.loadUnaligned(fromByteOffset: index &* 8, as: UInt64.self))
    }

    /// Posting `index`'s link: the index + 1 of the same subject's previous posting (0: none).
    @inline(__always)
    func link(_ index: Int) -> Int {
        Int(UInt32(littleEndian: links.loadUnaligned(fromByteOffset: index &* 4, as: UInt32.self)))
    }
}

/// The links of the subject index file (`index/subjects.idx`), read in place and checked: which records share a
/// subject, for grouping records into components without reading them (``RecordComponents``). Valid only inside
/// ``EventLog/withSubjectLinks(_:)``'s closure.
struct SubjectLinks {
    /// The file's postings, every seq in `1...coveredSeq` and every link pointing back.
    let postings: SubjectPostings
    /// The last record they cover: the log's head when they were read.
    let coveredSeq: UInt64
}

extension EventLog {
    /// Calls `body` with the subject index file's links when the file is intact (its checksum holds), covers
    /// exactly the records `1...head` (the head's seq and chain hash), and every posting names a record in that
    /// range and links only back; nil otherwise (the caller then reads the records' subject keys). The file is
    /// mapped, not copied, while `body` runs.
    func withSubjectLinks<Result>(_ body: (SubjectLinks) throws -> Result) rethrows -> Result? {
        let (headSeq, headHash) = head
        guard headSeq > 0,
            let region = fileSystem.mapFile(
                indexFiles.path(IndexFiles.subjectsName), minimumSize: DerivedFile.headerSize)
        else { return nil }
        defer { fileSystem.unmap(region) }
        guard let content = DerivedFile.content(of: region, coveredSeq: headSeq, headHash: headHash),
            let links = Self.links(in: content, headSeq: headSeq)
        else { return nil }
        return try body(links)
    }

    /// The links in a subject index file's content, checked; nil when malformed.
    private static func links(in content: UnsafeRawBufferPointer, headSeq: UInt64) -> SubjectLinks? {
        guard let postings = SubjectPostings(content) else { return nil }
        for index in 0..<postings.count {
            let seq = postings.seq(index)
            guard seq >= 1, seq <= headSeq, postings.link(index) <= index else { return nil }
        }
        return SubjectLinks(postings: postings, coveredSeq: headSeq)
    }
}
