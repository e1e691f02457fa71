/// The per-subject index: subject key → the seqs of its records, in order, kept as 64-bit stable hash → seqs.
///
/// Lookups confirm membership by reading the records, so a hash shared by two subjects never leaks records.
struct SubjectIndex: Sendable {
    var seqsByHash: [UInt64: [UInt64]] = [:]

    var subjectCount: Int { seqsByHash.count }

    /// Adds a record (seqs arrive in order; a subject named twice in one record is kept once).
    mutating func insert(hash: UInt64, seq: UInt64) {
        seqsByHash[hash, default: []].appendIfNew(seq)
    }

    /// The candidate seqs for a subject (to be confirmed by reading the records).
    func candidates(hash: UInt64) -> [UInt64] {
        seqsByHash[hash] ?? []
    }

    /// The persisted form: subject count, then per subject: hash, seq count, seqs.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE(UInt64(seqsByHash.count))
        for (hash, seqs) in seqsByHash {
            bytes.appendLE(hash)
            bytes.appendLE(UInt32(seqs.count))
            for seq in seqs { bytes.appendLE(seq) }
        }
        return bytes
    }

    /// Reads the persisted form; nil when malformed.
    static func decode(_ bytes: [UInt8]) -> SubjectIndex? {
        bytes.withUnsafeBytes { raw -> SubjectIndex? in
            var reader = ByteReader(raw)
            guard let count = reader.u64(), count <= UInt64(raw.count / 12) else { return nil }
            var index = SubjectIndex()
            index.seqsByHash.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let hash = reader.u64(), let n = reader.u32(), Int(n) <= raw.count / 8 else { return nil }
                var seqs: [UInt64] = []
                seqs.reserveCapacity(Int(n))
                for _ in 0..<n {
                    guard let seq = reader.u64() else { return nil }
                    seqs.append(seq)
                }
                index.seqsByHash[hash] = seqs
            }
            return reader.atEnd ? index : nil
        }
    }
}

extension Array where Element == UInt64 {
    fileprivate mutating func appendIfNew(_ seq: UInt64) {
        if last != seq { append(seq) }
    }
}
