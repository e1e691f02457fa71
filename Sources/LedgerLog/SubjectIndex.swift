/// The per-subject index: subject key → the seqs of its records, kept as a 64-bit stable hash → a linked list of
/// postings in two flat arrays (no allocation per subject or per record).
///
/// Lookups confirm membership by reading the records, so a hash shared by two subjects never leaks records.
struct SubjectIndex: Sendable {
    /// One posting: a record's seq and the same subject's previous posting, side by side (12 bytes), so that
    /// walking a subject's list costs one cache miss per record, not one per array.
    struct Posting: Sendable {
        private let seqLow: UInt32
        private let seqHigh: UInt32
        /// Index of the same subject's previous posting + 1 (0: none).
        let previous: UInt32

        init(seq: UInt64, previous: UInt32) {
            seqLow = UInt32(truncatingIfNeeded: seq)
            seqHigh = UInt32(truncatingIfNeeded: seq >> 32)
            self.previous = previous
        }

        /// The record's seq.
        var seq: UInt64 { UInt64(seqHigh) << 32 | UInt64(seqLow) }
    }

    /// Subject hash → index of its newest posting + 1.
    var heads = HashTable64()
    /// The postings, in the order added.
    var postings: [Posting] = []

    var subjectCount: Int { heads.count }

    /// Adds a record under one subject. Seqs arrive in order; callers pass each subject of a record once.
    @inline(__always)
    mutating func insert(hash: UInt64, seq: UInt64) {
        let posting = UInt64(postings.count + 1)
        var link: UInt64 = 0
        heads.update(hash) { head in
            link = head
            head = posting
        }
        postings.append(Posting(seq: seq, previous: UInt32(truncatingIfNeeded: link)))
    }

    /// Adds a record under each of its `count` subjects, once per distinct subject; `hashOf(i)` hashes the i-th.
    @inline(__always)
    mutating func insert(seq: UInt64, count: Int, _ hashOf: (Int) -> UInt64) {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: max(count, 1)) { hashes in
            for index in 0..<count {
                let hash = hashOf(index)
                hashes[index] = hash
                var seen = false
                for earlier in 0..<index where hashes[earlier] == hash { seen = true }
                if !seen { insert(hash: hash, seq: seq) }
            }
        }
    }

    /// The candidate seqs for a subject, ascending (to be confirmed by reading the records).
    func candidates(hash: UInt64) -> [UInt64] {
        var out: [UInt64] = []
        // Room for a typical subject's records at once (a few dozen): growing from empty would reallocate 5 times.
        out.reserveCapacity(32)
        var posting = Int(heads.find(hash) ?? 0)
        postings.withUnsafeBufferPointer { postings in
            while posting != 0, posting <= postings.count {
                out.append(postings[posting - 1].seq)
                // Links only point back (decode refuses others): a damaged table cannot loop.
                let previous = Int(postings[posting - 1].previous)
                guard previous < posting else { break }
                posting = previous
            }
        }
        out.reverse()  // in place: `reversed()` into an array would copy it
        return out
    }

    /// The persisted form: posting count, the seqs, the links, head count, (hash, head) pairs.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 + postings.count * 12 + heads.count * 16)
        bytes.appendLE(UInt64(postings.count))
        postings.map(\.seq).withUnsafeBytes { bytes.append(contentsOf: $0) }
        postings.map(\.previous).withUnsafeBytes { bytes.append(contentsOf: $0) }
        bytes.appendLE(UInt64(heads.count))
        heads.forEach { hash, head in
            bytes.appendLE(hash)
            bytes.appendLE(head)
        }
        return bytes
    }

    /// Reads the persisted form; nil when malformed.
    static func decode(_ bytes: [UInt8]) -> SubjectIndex? {
        bytes.withUnsafeBytes { raw -> SubjectIndex? in
            var reader = ByteReader(raw)
            guard let postings = reader.u64(), postings <= UInt64(raw.count / 12),
                let seqs = reader.array(UInt64.self, count: Int(postings)),
                let previous = reader.array(UInt32.self, count: Int(postings)),
                let count = reader.u64(), count <= UInt64(raw.count / 16)
            else { return nil }
            var postingList: [Posting] = []
            postingList.reserveCapacity(seqs.count)
            for (seq, link) in zip(seqs, previous) { postingList.append(Posting(seq: seq, previous: link)) }
            var index = SubjectIndex(heads: HashTable64(capacity: Int(count)), postings: postingList)
            for _ in 0..<count {
                guard let hash = reader.u64(), let head = reader.u64(), head <= postings else { return nil }
                index.heads.set(hash, head)
            }
            // Each posting links to an earlier one (or none): a list cannot loop.
            for (position, link) in previous.enumerated() where Int(link) > position { return nil }
            return reader.atEnd ? index : nil
        }
    }
}
