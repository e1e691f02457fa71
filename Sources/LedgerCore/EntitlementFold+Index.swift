extension EntitlementFold {
    /// The entries a fold may see, deduplicated and grouped by subscription.
    ///
    /// Built once per fold: entries recorded after the knowledge limit are dropped, the rest are grouped by
    /// original transaction id (a counting sort), and within each group duplicates (same idempotency key,
    /// which always share a subscription) collapse to the one with the lowest sequence number. Every later
    /// choice among entries uses a total order that does not depend on input order, so any permutation of
    /// the input gives the same answers.
    struct Index {
        /// One Apple subscription: its original transaction id and its members' range in ``members``.
        struct Group {
            let originalTransactionId: String
            /// ``originalTransactionId`` among the index's texts.
            let text: FoldText
            let members: Range<Int>
        }

        /// Where the fold's input comes from: whole entries, or records decoded for the fold alone (boxed: the
        /// index is copied into closures, and a box is one reference to retain, the batch's arrays are five).
        enum Source {
            case entries(UnsafeBufferPointer<LedgerEntry>)
            case records(RecordsBox)
        }

        /// A batch of records, by reference.
        final class RecordsBox {
            let records: FoldRecords

            init(_ records: FoldRecords) { self.records = records }
        }

        let source: Source
        /// The facts of every input entry, in input order (a fact's ``Fact/entry`` is its position).
        let facts: [Fact]
        /// The texts the facts name.
        let texts: FoldTexts
        /// Groups, sorted by original transaction id.
        private(set) var groups: [Group] = []
        /// Indices into ``facts`` of the visible Apple-sourced entries, contiguous per group, one per
        /// idempotency key.
        private(set) var members: [Int] = []
        /// Visible correction entries (indices into ``facts``), one per idempotency key.
        private(set) var corrections: [Int] = []

        init(_ entries: UnsafeBufferPointer<LedgerEntry>, knownAt: Instant?, only otid: String? = nil) {
            var facts: [Fact] = []
            var texts = FoldTexts()
            facts.reserveCapacity(entries.count)
            for index in entries.indices { facts.append(Fact(index, entries[index], texts: &texts)) }
            self.init(facts, texts, source: .entries(entries), knownAt: knownAt, only: otid)
        }

        init(_ records: FoldRecords, knownAt: Instant?, only otid: String? = nil) {
            self.init(
                records.facts, records.texts, source: .records(RecordsBox(records)), knownAt: knownAt, only: otid)
        }

        private init(_ facts: [Fact], _ texts: FoldTexts, source: Source, knownAt: Instant?, only otid: String?) {
            self.source = source
            self.facts = facts
            self.texts = texts
            var groups = GroupMap(capacity: facts.count)
            // Group of each visible entry, filled only once a second group appears: most subjects hold one
            // subscription, whose members are then the visible entries as they are.
            var assignment: [Int32] = []
            var visible: [Int] = []
            visible.reserveCapacity(facts.count)
            let voided = voided(knownAt: knownAt)
            for index in facts.indices {
                if let knownAt, facts[index].recordedAt > knownAt { continue }
                if !voided.isEmpty, voided.drops(facts[index], texts) { continue }
                if facts[index].isCorrection {
                    corrections.append(index)
                    continue
                }
                guard let key = facts[index].otid, otid.map({ texts.equals(key, $0) }) ?? true else { continue }
                let group = groups.index(of: key, in: texts)
                if group != 0, assignment.isEmpty {
                    assignment.reserveCapacity(facts.count)
                    assignment.append(contentsOf: repeatElement(0, count: visible.count))
                }
                if !assignment.isEmpty { assignment.append(Int32(group)) }
                visible.append(index)
            }
            var starts: [Int] = []
            if assignment.isEmpty {
                swap(&members, &visible)
            } else {
                // Counting sort into contiguous groups.
                starts = [Int](repeating: 0, count: groups.ids.count + 1)
                for group in assignment { starts[Int(group) + 1] += 1 }
                for group in groups.ids.indices { starts[group + 1] += starts[group] }
                var cursor = starts
                members = [Int](repeating: 0, count: visible.count)
                for (position, group) in assignment.enumerated() {
                    members[cursor[Int(group)]] = visible[position]
                    cursor[Int(group)] += 1
                }
            }
            // Deduplicate inside each group, compacting the member list.
            var result: [Group] = []
            result.reserveCapacity(groups.ids.count)
            var write = 0
            for (group, id) in groups.ids.enumerated() {
                let start = write
                let range = starts.isEmpty ? members.indices : starts[group]..<starts[group + 1]
                write = Self.deduplicateMembers(&members, range, writingAt: write, facts, texts, source)
                result.append(Group(originalTransactionId: texts.string(id), text: id, members: start..<write))
            }
            members.removeLast(members.count - write)
            result.sort { $0.originalTransactionId < $1.originalTransactionId }
            self.groups = result
            if !corrections.isEmpty {
                let kept = Self.deduplicate(&corrections, corrections.indices, writingAt: 0, facts, texts, source)
                corrections.removeLast(corrections.count - kept)
            }
        }

        /// The records the visible voids (recorded by `knownAt`) take out: the fold leaves them out as if they
        /// were not in its input, whatever the order of the input. A void names a record by seq; the record's
        /// duplicates (its idempotency key under other seqs: a redelivery) go with it, so that no copy of it
        /// counts. A void names any record but another void (the ledger refuses those; should an input hold one, it
        /// is left without effect, so the answer never depends on which of two voids is read first). Empty when the
        /// input holds no void, and then nothing is looked up.
        private func voided(knownAt: Instant?) -> Voided {
            var seqs: [UInt64] = []
            var hasVoids = false
            for fact in facts where fact.isVoid {
                hasVoids = true
                guard knownAt.map({ fact.recordedAt <= $0 }) ?? true, let seq = record(fact.entry).void?.seq else {
                    continue
                }
                seqs.append(seq)
            }
            guard hasVoids else { return Voided() }
            seqs.sort()
            var keys: [(hash: UInt64, key: FoldText)] = []
            for fact in facts where !fact.isVoid && Voided.search(seqs, fact.seq) {
                if !keys.contains(where: { $0.hash == fact.keyHash && texts.equal($0.key, fact.key) }) {
                    keys.append((fact.keyHash, fact.key))
                }
            }
            return Voided(isEmpty: false, keys: keys)
        }

        /// The idempotency keys of the records the visible voids take out (see ``voided(knownAt:)``).
        struct Voided {
            /// Whether the input holds no void at all (then no record is looked up).
            var isEmpty = true
            var keys: [(hash: UInt64, key: FoldText)] = []

            /// Whether a fact is a void, or a record (or a copy of a record) a visible void takes out.
            func drops(_ fact: Fact, _ texts: FoldTexts) -> Bool {
                fact.isVoid || keys.contains { $0.hash == fact.keyHash && texts.equal($0.key, fact.key) }
            }

            /// Whether sorted `seqs` hold `seq`.
            static func search(_ seqs: [UInt64], _ seq: UInt64) -> Bool {
                var low = 0
                var high = seqs.count
                while low < high {
                    let middle = (low + high) / 2
                    if seqs[middle] < seq { low = middle + 1 } else { high = middle }
                }
                return low < seqs.count && seqs[low] == seq
            }
        }

        /// The whole record of input entry `entry` (the fold reads corrections and links from it).
        func record(_ entry: Int) -> LedgerRecord {
            switch source {
            case .entries(let entries): return entries[entry].record
            case .records(let box): return box.records.record(entry)
            }
        }

        /// The group of one original transaction id, if present.
        func group(_ otid: String) -> Group? {
            var low = 0
            var high = groups.count
            while low < high {
                let mid = (low + high) / 2
                if groups[mid].originalTransactionId < otid { low = mid + 1 } else { high = mid }
            }
            return low < groups.count && groups[low].originalTransactionId == otid ? groups[low] : nil
        }

        /// ``deduplicate(_:_:writingAt:_:_:_:)`` for a group's members, which no later step reads in any order of
        /// theirs (each choice among them is by a total order of their own): when no two of them share a key hash,
        /// no two share a key, and they are moved as they are, without the sort (a rebuild's components are all
        /// such: a log records each idempotency key once).
        private static func deduplicateMembers(
            _ list: inout [Int], _ range: Range<Int>, writingAt write: Int, _ facts: [Fact], _ texts: FoldTexts,
            _ source: Source
        ) -> Int {
            guard hashesAreDistinct(list[range], facts) else {
                return deduplicate(&list, range, writingAt: write, facts, texts, source)
            }
            var write = write
            for position in range {
                list[write] = list[position]
                write += 1
            }
            return write
        }

        /// Whether the key hashes of `members` are pairwise distinct: one pass through an open-addressed table
        /// (false, and the sort decides, when two hashes meet).
        private static func hashesAreDistinct(_ members: ArraySlice<Int>, _ facts: [Fact]) -> Bool {
            guard members.count > 1 else { return true }
            let shape = HashSlots(keys: members.count)
            let mask = shape.mask
            return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: shape.count) { table in
                // 0 marks an empty slot: a hash of 0 is kept as 1 (two hashes made to meet only send the members
                // to the sort).
                table.initialize(repeating: 0)
                for member in members {
                    let hash = max(facts[member].keyHash, 1)
                    var slot = shape.first(hash)
                    while table[slot] != 0 {
                        if table[slot] == hash { return false }
                        slot = (slot + 1) & mask
                    }
                    table[slot] = hash
                }
                return true
            }
        }

        /// Sorts `range` of `list` (indices into `facts`) by idempotency key (hash first), then by which
        /// duplicate wins,
        /// and writes one per key from `write` on. Returns the next write position.
        private static func deduplicate(
            _ list: inout [Int], _ range: Range<Int>, writingAt write: Int, _ facts: [Fact], _ texts: FoldTexts,
            _ source: Source
        ) -> Int {
            // Keys are almost always distinct: sort (hash, index) pairs, side by side, and look at the facts only
            // when two hashes tie (a duplicate, or a collision).
            withUnsafeTemporaryAllocation(of: (hash: UInt64, index: Int).self, capacity: range.count) { buffer in
                let keyed = buffer
                for (slot, position) in range.enumerated() {
                    keyed.initializeElement(at: slot, to: (facts[list[position]].keyHash, list[position]))
                }
                keyed.sortSmall { lhs, rhs in
                    if lhs.hash != rhs.hash { return lhs.hash < rhs.hash }
                    let (left, right) = (facts[lhs.index], facts[rhs.index])
                    if !texts.equal(left.key, right.key) { return texts.precedes(left.key, right.key) }
                    if left.seq != right.seq { return left.seq < right.seq }
                    if left.recordedAt != right.recordedAt { return left.recordedAt < right.recordedAt }
                    return precedes(left.entry, right.entry, source)
                }
                for (slot, position) in range.enumerated() { list[position] = keyed[slot].index }
                _ = keyed.deinitialize()
            }
            var write = write
            for position in range {
                let index = list[position]
                if position > range.lowerBound, texts.equal(facts[list[write - 1]].key, facts[index].key) { continue }
                list[write] = index
                write += 1
            }
            return write
        }

        /// Which of two duplicates with the same sequence number and recording time (malformed input: no log
        /// holds two records under one seq) the fold keeps: the smaller encoding. (A log's payload is the record's
        /// encoding, so both sources choose alike on records of the current encoding version.)
        private static func precedes(_ lhs: Int, _ rhs: Int, _ source: Source) -> Bool {
            switch source {
            case .entries(let entries):
                if entries[lhs].record == entries[rhs].record { return false }
                return entries[lhs].record.encoded().lexicographicallyPrecedes(entries[rhs].record.encoded())
            case .records(let box):
                return box.records.payloadPrecedes(lhs, rhs)
            }
        }
    }

    /// Original transaction id → group number, in the order first seen: a linear scan while there are few
    /// groups (a query), an open-addressed table of their hashes beyond (a rebuild's big component).
    struct GroupMap {
        private(set) var ids: [FoldText] = []
        private var hashes: [UInt64] = []
        /// Hash → group number + 1 (0: empty); a power of two, at most half full; empty while groups are few.
        private var slots: [Int32] = []
        private let capacity: Int

        /// A map for at most `capacity` ids.
        init(capacity: Int) {
            self.capacity = capacity
        }

        mutating func index(of id: FoldText, in texts: FoldTexts) -> Int {
            if slots.isEmpty {
                if let last = ids.last, texts.equal(last, id) { return ids.count - 1 }
                for (group, known) in ids.enumerated() where texts.equal(known, id) { return group }
                ids.append(id)
                if ids.count > 8 {
                    hashes = ids.map { texts.hash($0) }
                    var size = 64
                    while size < 2 * capacity { size *= 2 }
                    slots = [Int32](repeating: 0, count: size)
                    for group in ids.indices { place(group) }
                }
                return ids.count - 1
            }
            let hash = texts.hash(id)
            var slot = Self.slot(hash, slots.count)
            while slots[slot] > 0 {
                let group = Int(slots[slot]) - 1
                if hashes[group] == hash, texts.equal(ids[group], id) { return group }
                slot = (slot + 1) & (slots.count - 1)
            }
            ids.append(id)
            hashes.append(hash)
            slots[slot] = Int32(ids.count)
            return ids.count - 1
        }

        private mutating func place(_ group: Int) {
            var slot = Self.slot(hashes[group], slots.count)
            while slots[slot] > 0 { slot = (slot + 1) & (slots.count - 1) }
            slots[slot] = Int32(group + 1)
        }

        private static func slot(_ hash: UInt64, _ count: Int) -> Int {
            HashSlots(count: count).first(hash)
        }
    }
}

/// Numeric-looking identifiers compare by length first, so "99" precedes "100"; others lexicographically.
func identifierPrecedes(_ lhs: String, _ rhs: String) -> Bool {
    let left = lhs.utf8.count
    let right = rhs.utf8.count
    return left != right ? left < right : lhs < rhs
}
