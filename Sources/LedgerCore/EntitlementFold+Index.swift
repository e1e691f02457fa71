extension EntitlementFold {
    /// The entries a fold may see, deduplicated and grouped by subscription.
    ///
    /// Built once per fold in O(n): entries recorded after the knowledge limit are dropped, duplicates (same
    /// idempotency key) collapse to the one with the lowest sequence number, and the survivors are grouped by
    /// original transaction id with a counting sort. Every later choice among entries uses a total order that
    /// does not depend on input order, so any permutation of the input gives the same answers.
    struct Index {
        /// One Apple subscription: its original transaction id and its members' range in ``members``.
        struct Group {
            let originalTransactionId: String
            let members: Range<Int>
        }

        let entries: UnsafeBufferPointer<LedgerEntry>
        /// Groups, sorted by original transaction id.
        private(set) var groups: [Group] = []
        /// Entry indices, contiguous per group.
        private(set) var members: [Int] = []
        /// Visible, deduplicated correction entries.
        private(set) var corrections: [Int] = []

        init(_ entries: UnsafeBufferPointer<LedgerEntry>, knownAt: Instant?, only otid: String? = nil) {
            self.entries = entries
            let survivors = Self.deduplicated(entries, knownAt: knownAt)
            var groupOf: [String: Int] = [:]
            var groupIds: [String] = []
            var assignment: [Int] = []
            assignment.reserveCapacity(survivors.count)
            for index in survivors {
                if entries[index].record.source == .correction {
                    corrections.append(index)
                    assignment.append(-1)
                    continue
                }
                guard let key = entries[index].record.subscriptionKey, otid == nil || otid == key else {
                    assignment.append(-1)
                    continue
                }
                if let group = groupOf[key] {
                    assignment.append(group)
                } else {
                    groupOf[key] = groupIds.count
                    assignment.append(groupIds.count)
                    groupIds.append(key)
                }
            }
            // Counting sort of the survivors into contiguous groups, then order the groups by id.
            var starts = [Int](repeating: 0, count: groupIds.count + 1)
            for group in assignment where group >= 0 { starts[group + 1] += 1 }
            for group in 0..<groupIds.count { starts[group + 1] += starts[group] }
            var cursor = starts
            members = [Int](repeating: 0, count: starts[groupIds.count])
            for (position, group) in assignment.enumerated() where group >= 0 {
                members[cursor[group]] = survivors[position]
                cursor[group] += 1
            }
            groups = groupIds.indices.map { Group(originalTransactionId: groupIds[$0], members: starts[$0]..<starts[$0 + 1]) }
            groups.sort { $0.originalTransactionId < $1.originalTransactionId }
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

        /// Indices of visible entries, one per idempotency key: the lowest sequence number wins.
        private static func deduplicated(_ entries: UnsafeBufferPointer<LedgerEntry>, knownAt: Instant?) -> [Int] {
            var chosen: [String: Int] = [:]
            chosen.reserveCapacity(entries.count)
            for index in entries.indices {
                if let knownAt, entries[index].recordedAt > knownAt { continue }
                let key = entries[index].record.idempotencyKey
                if let other = chosen[key] {
                    if precedes(entries[index], entries[other]) { chosen[key] = index }
                } else {
                    chosen[key] = index
                }
            }
            return Array(chosen.values)
        }

        /// Which of two duplicates the fold keeps: the lower sequence number, then (for malformed input that
        /// repeats a sequence number) the earlier recording, then the smaller encoding.
        private static func precedes(_ lhs: LedgerEntry, _ rhs: LedgerEntry) -> Bool {
            if lhs.seq != rhs.seq { return lhs.seq < rhs.seq }
            if lhs.recordedAt != rhs.recordedAt { return lhs.recordedAt < rhs.recordedAt }
            if lhs.record == rhs.record { return false }
            return lhs.record.encoded().lexicographicallyPrecedes(rhs.record.encoded())
        }
    }
}

extension LedgerRecord {
    /// The original transaction id of the subscription this record is about, if any.
    var subscriptionKey: String? {
        transaction?.originalTransactionId ?? renewal?.originalTransactionId ?? subject.originalTransactionId
    }

    /// When the record's App Store state was signed: the notification's, else the renewal info's.
    var signalTime: Instant? {
        notification?.signedDate ?? renewal?.signedDate
    }
}

/// Numeric-looking identifiers compare by length first, so "99" precedes "100"; others lexicographically.
func identifierPrecedes(_ lhs: String, _ rhs: String) -> Bool {
    let left = lhs.utf8.count
    let right = rhs.utf8.count
    return left != right ? left < right : lhs < rhs
}
