import LedgerSystem

/// The per-subject index: subject key → the seqs of its records, keyed by a 64-bit stable hash, in two parts (no
/// allocation per subject or per record in either):
///
/// - the **grouped** part, built when the index file is loaded: each subject's seqs side by side in one flat
///   array, with where each record starts in its segment, so a lookup touches the subject's slot, one run of
///   postings and then the records themselves. On a log of millions of records a subject's records, and so its
///   postings in the order they were added, lie scattered over hundreds of megabytes: a linked list through them
///   costs one cache (and often TLB) miss per record before the first record is read, and a look-up of each
///   record's offset another;
/// - the **tail**: the records indexed since (appends, the records after the file's covered seq), a linked list
///   per subject through one flat array of postings, as cheap to add to as an array append.
///
/// A subject's grouped seqs all precede its tail's (the tail holds only records after the grouped part's), so
/// its candidates come back ascending. Lookups confirm membership by reading the records, so a hash shared by two
/// subjects never leaks records.
struct SubjectIndex: Sendable {
    /// A record's seq as two 32-bit halves: 4-byte aligned, so a seq and a 32-bit word pack into 12 bytes.
    struct PackedSeq: Sendable {
        private let low: UInt32
        private let high: UInt32

        init(_ seq: UInt64) {
            low = UInt32(truncatingIfNeeded: seq)
            high = UInt32(truncatingIfNeeded: seq >> 32)
        }

        var value: UInt64 { UInt64(high) << 32 | UInt64(low) }
    }

    /// One posting of the tail: a record's seq and the same subject's previous tail posting, side by side (12
    /// bytes), so that walking a subject's list costs one cache miss per record, not one per array.
    struct Posting: Sendable {
        private let packed: PackedSeq
        /// Index of the same subject's previous tail posting + 1 (0: none).
        let previous: UInt32

        init(seq: UInt64, previous: UInt32) {
            packed = PackedSeq(seq)
            self.previous = previous
        }

        /// The record's seq.
        var seq: UInt64 { packed.value }
    }

    /// One grouped posting: a record's seq and where the record starts in its segment, side by side (12 bytes),
    /// so a subject's postings and places are one run of memory.
    struct PlacedPosting: Sendable {
        private let packed: PackedSeq
        /// Where the record starts in its segment (``SubjectIndex/unknownOffset``: not placed).
        let offset: UInt32

        init(seq: UInt64, offset: UInt32) {
            packed = PackedSeq(seq)
            self.offset = offset
        }

        /// The record's seq.
        var seq: UInt64 { packed.value }
    }

    /// A subject's candidate records, ascending: their seqs and, where the grouped part knows it, where each one
    /// starts in its segment (``SubjectIndex/unknownOffset`` otherwise, as for the tail's).
    struct Candidates {
        var seqs: [UInt64] = []
        var offsets: [UInt32] = []
    }

    /// The offset of a record the index does not place.
    static let unknownOffset = UInt32.max
    /// A group's posting count is kept in the low 28 bits of its slot's value (more than the index's 2^28
    /// records), its start in the others.
    private static let groupCountBits: UInt64 = 28

    /// The postings of the group whose slot value is `value`.
    @inline(__always)
    private static func groupRange(_ value: UInt64) -> Range<Int> {
        let start = Int(value >> groupCountBits)
        return start..<(start + Int(value & (1 << groupCountBits - 1)))
    }

    /// Subject hash → its group in ``grouped``: start << 28 | count.
    private(set) var groups = HashTable64()
    /// The grouped postings, each subject's side by side, ascending; placed by ``placeGroups(_:)``.
    private(set) var grouped: [PlacedPosting] = []
    /// Tail: subject hash → index of its newest tail posting + 1.
    var heads = HashTable64()
    /// Tail: the postings, in the order added.
    var postings: [Posting] = []

    init(heads: HashTable64 = HashTable64()) {
        self.heads = heads
    }

    /// How many distinct subjects the index holds (counts the tail's subjects the grouped part does not hold).
    var subjectCount: Int {
        var tailOnly = 0
        heads.forEach { hash, _ in if groups.find(hash) == nil { tailOnly += 1 } }
        return groups.count + tailOnly
    }

    /// Adds a record under one subject, to the tail. Seqs arrive in order, after every grouped one; callers pass
    /// each subject of a record once.
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
        placedCandidates(hash: hash).seqs
    }

    /// The candidate records for a subject, ascending, with where the grouped part places them (to be confirmed
    /// by reading the records).
    func placedCandidates(hash: UInt64) -> Candidates {
        var out = Candidates()
        // Room for a typical subject's records at once (a few dozen): growing from empty would reallocate 5 times.
        out.seqs.reserveCapacity(32)
        out.offsets.reserveCapacity(32)
        if let group = groups.find(hash) {
            for posting in grouped[Self.groupRange(group)] {
                out.seqs.append(posting.seq)
                out.offsets.append(posting.offset)
            }
        }
        let grouped = out.seqs.count
        var posting = Int(heads.find(hash) ?? 0)
        postings.withUnsafeBufferPointer { postings in
            while posting != 0, posting <= postings.count {
                out.seqs.append(postings[posting - 1].seq)
                // Links only point back (decode refuses others): a damaged table cannot loop.
                let previous = Int(postings[posting - 1].previous)
                guard previous < posting else { break }
                posting = previous
            }
        }
        out.seqs[grouped...].reverse()  // in place: `reversed()` into an array would copy it
        out.offsets.append(contentsOf: repeatElement(Self.unknownOffset, count: out.seqs.count - grouped))
        return out
    }

    /// Records where each grouped posting's record starts, from the segments' record offsets (a seq no segment
    /// holds keeps ``unknownOffset``; readers check every offset against the record's seq anyway).
    mutating func placeGroups(_ segments: [Segment]) {
        grouped.withUnsafeMutableBufferPointer { postings in
            // Independent look-ups, one per posting: the misses of neighbouring postings overlap.
            for index in postings.indices {
                let seq = postings[index].seq
                var offset = Self.unknownOffset
                if let (_, start) = SegmentReader.locate(segments, seq: seq), start < Int64(Self.unknownOffset) {
                    offset = UInt32(start)
                }
                postings[index] = PlacedPosting(seq: seq, offset: offset)
            }
        }
    }

    /// The persisted form: posting count `n`, the `n` seqs, the `n` links (index + 1 of the same subject's
    /// previous posting, 0 for none), head count, (hash, index + 1 of the subject's newest posting) pairs. The
    /// grouped postings come first, group after group, then the tail's in the order added.
    func encoded() -> [UInt8] {
        let base = grouped.count
        let count = base + postings.count
        var links = [UInt32](repeating: 0, count: count)
        // Within a group each posting links to the one before it.
        groups.forEach { _, group in
            for index in Self.groupRange(group).dropFirst() { links[index] = UInt32(index) }
        }
        // The tail's links, shifted past the groups; its first posting of a subject links to the subject's group.
        var firsts = [UInt32](repeating: 0, count: postings.count)
        for (index, posting) in postings.enumerated() {
            let previous = Int(posting.previous)
            firsts[index] = previous == 0 ? UInt32(index) : firsts[previous - 1]
            if previous != 0 { links[base + index] = UInt32(base + previous) }
        }
        var subjects = 0
        heads.forEach { hash, head in
            if let group = groups.find(hash) {
                links[base + Int(firsts[Int(head) - 1])] = UInt32(Self.groupRange(group).upperBound)
            } else {
                subjects += 1
            }
        }
        subjects += groups.count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 + count * 12 + subjects * 16)
        bytes.appendLE(UInt64(count))
        grouped.map(\.seq).withUnsafeBytes { bytes.append(contentsOf: $0) }
        postings.map(\.seq).withUnsafeBytes { bytes.append(contentsOf: $0) }
        links.withUnsafeBytes { bytes.append(contentsOf: $0) }
        bytes.appendLE(UInt64(subjects))
        groups.forEach { hash, group in
            guard heads.find(hash) == nil else { return }
            bytes.appendLE(hash)
            bytes.appendLE(UInt64(Self.groupRange(group).upperBound))
        }
        heads.forEach { hash, head in
            bytes.appendLE(hash)
            bytes.appendLE(UInt64(base) + head)
        }
        return bytes
    }

    /// Reads the persisted form (postings in any order whose links point back) into the grouped part, each
    /// subject's postings in the order of the file, which must be ascending; nil when malformed. The offsets are
    /// left unknown until ``placeGroups(_:)``.
    static func decode(_ bytes: [UInt8]) -> SubjectIndex? {
        bytes.withUnsafeBytes { raw -> SubjectIndex? in
            var reader = ByteReader(raw)
            guard let file = SubjectPostings(raw), file.count < Int(UInt32.max), reader.bytes(file.byteCount) != nil,
                let subjects = reader.u64(), subjects <= UInt64(raw.count / 16)
            else { return nil }
            let postings = file.count
            // Each posting's group: a posting without a link starts one, a linked one joins its previous
            // posting's (a forward pass: the look-ups of neighbouring postings are independent, so their misses
            // overlap). Links point back only, so a list cannot loop.
            var groupOf = [UInt32](repeating: 0, count: postings)
            var sizes = [UInt32](repeating: 0, count: postings)  // room for one group per posting
            var groups = 0
            let linked = groupOf.withUnsafeMutableBufferPointer { groupOf in
                sizes.withUnsafeMutableBufferPointer { sizes in
                    for index in 0..<postings {
                        let link = file.link(index)
                        guard link <= index else { return false }
                        let group = link == 0 ? groups : Int(groupOf[link &- 1])
                        if link == 0 { groups &+= 1 }
                        groupOf[index] = UInt32(truncatingIfNeeded: group)
                        sizes[group] &+= 1
                    }
                    return true
                }
            }
            guard linked else { return nil }
            // Each group's slot value (start << 28 | count), then each posting placed in its group, in the file's
            // order, rising.
            var slots = [UInt64](repeating: 0, count: groups)
            var filled = [UInt32](repeating: 0, count: groups)
            var total: UInt32 = 0
            for group in 0..<groups {
                guard UInt64(sizes[group]) < 1 << groupCountBits else { return nil }
                slots[group] = UInt64(total) << groupCountBits | UInt64(sizes[group])
                filled[group] = total
                total &+= sizes[group]
            }
            // Read at random by every query: in huge pages where the kernel has them (``HugePages``).
            var grouped = [PlacedPosting](
                hugePagesRepeating: PlacedPosting(seq: 0, offset: unknownOffset), count: postings)
            let ascending = grouped.withUnsafeMutableBufferPointer { grouped in
                filled.withUnsafeMutableBufferPointer { filled in
                    for posting in 0..<postings {
                        let group = Int(groupOf[posting])
                        let at = Int(filled[group])
                        let seq = file.seq(posting)
                        let first = at == groupRange(slots[group]).lowerBound
                        guard seq >= 1, first || grouped[at &- 1].seq < seq else { return false }
                        grouped[at] = PlacedPosting(seq: seq, offset: unknownOffset)
                        filled[group] = UInt32(truncatingIfNeeded: at &+ 1)
                    }
                    return true
                }
            }
            guard ascending else { return nil }
            var index = SubjectIndex()
            index.grouped = grouped
            index.groups = HashTable64(capacity: Int(subjects))
            for _ in 0..<subjects {
                guard let hash = reader.u64(), let head = reader.u64(), head >= 1, head <= UInt64(postings) else {
                    return nil
                }
                index.groups.set(hash, slots[Int(groupOf[Int(head) - 1])])
            }
            return reader.atEnd ? index : nil
        }
    }
}
