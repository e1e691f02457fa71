import LedgerCore
import LedgerLog
import LedgerStore

extension Ledger {
    /// Calls `body` once with every record that may be about the subject (see ``entries(for:)``), in place;
    /// `body` returns the original transaction ids the record names, whose records are read next. For a
    /// subscription, the records its owners' keys index are read last (`owners`: the keys the records read so far
    /// name), without following the subscriptions they name: an operator's revoke addressed to the user ends the
    /// subscription however it is asked about.
    func forEachRecord(
        about query: SubjectQuery,
        _ body: (UInt64, Int64, UnsafeRawBufferPointer) throws(ServiceError) -> FoldRecords.Named,
        owners ownersRead: () -> [String]
    ) throws(ServiceError) {
        // A subject's records number a few dozen: sorted arrays, not sets. The file log skips the seqs read
        // already by binary search; other stores take a set.
        // Room for a typical subject at once: arrays grown from empty would reallocate several times a query.
        var seen: [UInt64] = []
        seen.reserveCapacity(64)
        var found = NamedSubscriptions()
        var visited: [String] = []
        visited.reserveCapacity(8)
        var owners: [String]?
        if case .originalTransaction(let otid) = query { visited.append(otid) }
        let eventLog = log as? any RecordViews
        // A store that can answer every read of the walk as of one head.
        var reads: any SubjectReading = log
        if eventLog == nil, let snapshots = log as? any SubjectSnapshots {
            do {
                if let snapshot = try snapshots.subjectSnapshot() { reads = snapshot }
            } catch {
                throw ServiceError(error)
            }
        }
        var key = SubjectKeys.key(for: query)
        while true {
            // Each record is read once and decoded once, straight from the log's buffer, however many of the
            // subject's keys index it.
            found.read.removeAll(keepingCapacity: true)
            try Self.mapErrors {
                if let eventLog {
                    try eventLog.forEachRecord(forSubjectKey: key, skippingSorted: seen) { view in
                        found.add(view.seq, try body(view.seq, view.recordedAt, view.payload))
                    }
                } else {
                    try reads.forEachPayload(forSubjectKey: key, skipping: Set(seen)) { seq, recordedAt, payload in
                        found.add(seq, try body(seq, recordedAt, payload))
                    }
                }
            }
            if !found.read.isEmpty {
                seen += found.read
                seen.sort()
            }
            if owners != nil { found.subscriptions.removeAll(keepingCapacity: true) }
            var next: String?
            while next == nil, let otid = found.subscriptions.popLast() {
                if !visited.contains(otid) {
                    visited.append(otid)
                    next = otid
                }
            }
            if let next {
                key = SubjectKeys.subscription(next)
                continue
            }
            guard case .originalTransaction = query else { return }
            if owners == nil { owners = ownersRead() }
            guard let owner = owners?.popLast() else { return }
            key = owner
        }
    }
}

/// What one pass of ``Ledger/forEachRecord(about:_:owners:)`` found: the seqs it read, and the subscriptions the
/// records name, to be read next.
private struct NamedSubscriptions {
    var read: [UInt64] = []
    var subscriptions: [String] = []

    init() {
        read.reserveCapacity(32)
        subscriptions.reserveCapacity(32)
    }

    /// Notes record `seq` and the subscriptions it names.
    mutating func add(_ seq: UInt64, _ named: FoldRecords.Named) {
        // A repeat of the last id pushed would be popped next and skipped as visited: not pushed.
        if let otid = named.subject, subscriptions.last != otid { subscriptions.append(otid) }
        if let otid = named.transaction, subscriptions.last != otid { subscriptions.append(otid) }
        read.append(seq)
    }
}
