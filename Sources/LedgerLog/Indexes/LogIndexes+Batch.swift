import LedgerStore
import LedgerSystem

/// Adding a durably written batch to the indexes: the appender's hot path, under the log's lock.
extension LogIndexes {
    /// How many records' index slots are prefetched ahead of their inserts.
    static let lookahead = 32
    /// From how many records a batch's two indexes are updated on two threads at once.
    static let parallelApply = 4096

    /// Adds a written batch's new records: their idempotency keys and their subjects (hashed by the write).
    ///
    /// The two are independent tables: a large batch updates them on two threads at once (their cache misses
    /// overlapping too), a small one in turn.
    mutating func add(_ plan: BatchPlan, _ written: BatchWrite) {
        // Moved out of the state while updated: unique (no copy on write) and no exclusivity check per record.
        var keys = self.keys
        var subjects = self.subjects
        self.keys = KeyIndex()
        self.subjects = SubjectIndex()
        if plan.records.count >= Self.parallelApply && onlineProcessorCount > 1 {
            withUnsafeMutablePointer(to: &keys) { keys in
                withUnsafeMutablePointer(to: &subjects) { subjects in
                    let work = ApplyWork(plan: plan, written: written, keys: keys, subjects: subjects)
                    runThreads(2) { part in
                        if part == 0 {
                            Self.insertKeys(work.plan, into: &work.keys.pointee)
                        } else {
                            Self.insertSubjects(work.plan, work.written, into: &work.subjects.pointee)
                        }
                    }
                }
            }
        } else {
            Self.insertKeys(plan, into: &keys)
            Self.insertSubjects(plan, written, into: &subjects)
        }
        self.keys = keys
        self.subjects = subjects
    }

    /// Adds a batch's idempotency keys (new ones: the plan left duplicates out).
    private static func insertKeys(_ plan: BatchPlan, into keys: inout KeyIndex) {
        // Room for the whole batch at once: one rehash, not one per doubling.
        keys.table.reserve(plan.records.count)
        plan.records.withUnsafeBufferPointer { records in
            plan.forEachEntry { position, entry in
                if position & (lookahead - 1) == 0 {
                    // Prefetch the slots of the next records first: their cache misses overlap, so the inserts
                    // that follow find the lines in the cache.
                    for ahead in position..<min(position + lookahead, records.count) {
                        keys.table.prefetch(records[ahead].keyHash)
                    }
                }
                let record = records[position]
                let taken = keys.table.update(record.keyHash) { seq in if seq == 0 { seq = record.seq } }
                if taken { keys.overflow[entry.pointee.idempotencyKey] = record.seq }
                return true
            }
        }
    }

    /// Adds a batch's records under their subjects (hashed by the write, in order).
    private static func insertSubjects(_ plan: BatchPlan, _ written: BatchWrite, into subjects: inout SubjectIndex) {
        subjects.heads.reserve(plan.records.count)
        written.subjectHashes.withUnsafeBufferPointer { subjectHashes in
            plan.records.withUnsafeBufferPointer { records in
                var nextHash = 0
                plan.forEachEntry { position, entry in
                    if position & (lookahead - 1) == 0 {
                        for ahead in nextHash..<min(nextHash + 2 * lookahead, subjectHashes.count) {
                            subjects.heads.prefetch(subjectHashes[ahead])
                        }
                    }
                    let count = entry.pointee.subjectKeys.count
                    let first = nextHash
                    subjects.insert(seq: records[position].seq, count: count) { subjectHashes[first + $0] }
                    nextHash += count
                    return true
                }
            }
        }
    }
}

/// What the two threads of ``LogIndexes/add(_:_:)`` share.
///
/// `@unchecked Sendable`: both threads only read the plan and the write; one thread alone changes the keys, the
/// other the subjects, and both are joined before the pointers' scopes end.
private struct ApplyWork: @unchecked Sendable {
    let plan: BatchPlan
    let written: BatchWrite
    let keys: UnsafeMutablePointer<KeyIndex>
    let subjects: UnsafeMutablePointer<SubjectIndex>
}
