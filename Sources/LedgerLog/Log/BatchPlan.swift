import LedgerStore
import LedgerSystem

/// One caller's entries waiting for the group commit.
struct PendingAppend {
    var ticket: Int
    var entries: [LogEntry]
    /// Evidence for these entries was stored without its own sync: the batch makes it durable first.
    var syncEvidenceFirst = false
}

/// What a leader decided for one batch, under the lock: new records with their seqs and times, and every
/// caller's outcomes.
struct BatchPlan {
    /// The requests, as queued (the plan refers to their entries by position, so they are never copied).
    var batch: [PendingAppend]
    var tickets: [Int] = []
    var outcomes: [[AppendOutcome]] = []
    /// The records to write: which request and entry, and the seq, time and key hash given to it.
    var records: [(request: Int32, index: Int32, seq: UInt64, recordedAt: Int64, keyHash: UInt64)] = []

    init(batch: [PendingAppend]) { self.batch = batch }

    /// Plans `batch` after `head`: assigns seqs and times (never before the head's, `now` for entries that give
    /// none), and finds duplicates, in the log (`keys`, a hash hit confirmed by `confirm`, which gives the key of
    /// the record with that seq) or earlier in the batch.
    init(
        _ batch: [PendingAppend], after head: LogHead, now: Int64, keys: KeyIndex,
        confirm: (UInt64) -> String?
    ) {
        var plan = BatchPlan(batch: batch)
        var nextSeq = head.seq + 1
        var time = head.time
        var entryCount = 0
        for request in batch { entryCount += request.entries.count }
        plan.records.reserveCapacity(entryCount)
        plan.tickets.reserveCapacity(batch.count)
        plan.outcomes.reserveCapacity(batch.count)
        // Keys earlier in this batch: hash → index in plan.records + 1; distinct keys sharing a hash go by name.
        var inBatch = HashTable64(capacity: entryCount)
        var inBatchCollisions: [String: UInt64] = [:]
        for requestIndex in batch.indices {
            var outcomes: [AppendOutcome] = []
            outcomes.reserveCapacity(batch[requestIndex].entries.count)
            batch[requestIndex].entries.withUnsafeBufferPointer { entries in
                for entryIndex in entries.indices {
                    let hash = RecordCodec.keyHash(entries[entryIndex].idempotencyKey)
                    var earlier: UInt64?
                    if let position = inBatch.find(hash) {
                        let key = entries[entryIndex].idempotencyKey
                        let seq = plan.records[Int(position) - 1].seq
                        earlier = plan.entry(Int(position) - 1).idempotencyKey == key ? seq : inBatchCollisions[key]
                    }
                    // A key whose hash the index has never seen is new without reading anything.
                    if earlier == nil && (!keys.overflow.isEmpty || keys.table.find(hash) != nil) {
                        earlier = keys.seq(for: entries[entryIndex].idempotencyKey, hash: hash, keyOf: confirm)
                    }
                    if let seq = earlier {
                        outcomes.append(.duplicate(seq: seq))
                        continue
                    }
                    time = max(time, entries[entryIndex].recordedAt ?? now)
                    plan.records.append((Int32(requestIndex), Int32(entryIndex), nextSeq, time, hash))
                    if inBatch.find(hash) == nil {
                        inBatch.set(hash, UInt64(plan.records.count))
                    } else {
                        inBatchCollisions[entries[entryIndex].idempotencyKey] = nextSeq
                    }
                    outcomes.append(.appended(seq: nextSeq, recordedAt: time))
                    nextSeq += 1
                }
            }
            plan.tickets.append(batch[requestIndex].ticket)
            plan.outcomes.append(outcomes)
        }
        self = plan
    }

    /// The entry of a planned record.
    @inline(__always)
    func entry(_ position: Int) -> LogEntry {
        let record = records[position]
        return batch[Int(record.request)].entries[Int(record.index)]
    }

    /// Calls `body` with each planned record's position and entry, in order, reaching each request's entries
    /// through one buffer pointer, so no entry is copied (and retained) per record. Stops when `body` returns
    /// false.
    @inline(__always)
    func forEachEntry(_ body: (Int, UnsafePointer<LogEntry>) -> Bool) {
        var position = 0
        while position < records.count {
            let request = Int(records[position].request)
            let goOn = batch[request].entries.withUnsafeBufferPointer { entries -> Bool in
                while position < records.count && Int(records[position].request) == request {
                    if !body(position, entries.baseAddress! + Int(records[position].index)) { return false }
                    position += 1
                }
                return true
            }
            if !goOn { return }
        }
    }
}

/// What the leader's write produced.
struct BatchWrite {
    var offsets: [UInt32] = []
    var end: Int64 = 0
    var lastHash: [UInt8] = []
    /// The stable hash of every subject key of every record, in order (hashed from the encoded bytes while the
    /// leader wrote them, outside the lock).
    var subjectHashes: [UInt64] = []
}
