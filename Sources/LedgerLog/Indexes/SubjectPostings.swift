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

    /// The seqs of the subject whose key hashes to `hash`, ascending, from the heads that follow the postings in
    /// `content` (searched one by one: for a reader's first look-ups, not for a loaded index); empty when the
    /// file names no such subject, nil when its heads or that subject's links are malformed.
    func seqs(of hash: UInt64, in content: UnsafeRawBufferPointer) -> [UInt64]? {
        guard content.count >= byteCount + 8, let base = content.baseAddress else { return nil }
        let heads = Int(clamping: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: byteCount, as: UInt64.self)))
        guard heads == (content.count - byteCount - 8) / 16, (content.count - byteCount - 8) % 16 == 0 else {
            return nil
        }
        var newest = 0
        for head in 0..<heads {
            let at = byteCount + 8 + head &* 16
            guard UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self)) == hash else {
                continue
            }
            newest = Int(clamping: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)))
            break
        }
        guard newest <= count else { return nil }
        // From the newest posting back along the links, each pointing back, the seqs falling.
        var seqs: [UInt64] = []
        var posting = newest
        while posting > 0 {
            let seq = self.seq(posting - 1)
            let previous = link(posting - 1)
            guard seq >= 1, previous < posting, seqs.last.map({ seq < $0 }) ?? true else { return nil }
            seqs.append(seq)
            posting = previous
        }
        return seqs.reversed()
    }

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

extension SubjectLinks {
    /// The links in a subject index file's content, checked; nil when malformed.
    init?(_ content: UnsafeRawBufferPointer, headSeq: UInt64) {
        guard let postings = SubjectPostings(content) else { return nil }
        for index in 0..<postings.count {
            let seq = postings.seq(index)
            guard seq >= 1, seq <= headSeq, postings.link(index) <= index else { return nil }
        }
        self.init(postings: postings, coveredSeq: headSeq)
    }
}
