import LedgerCore
import LedgerLog
import LedgerStore

/// Components: the groups of records that can influence each other's entitlement. Records sharing a
/// subject key (a user, an account, a subscription) are in one component, so a user with their
/// subscriptions, links and corrections is folded together, and nothing outside it matters.
extension Ledger {
    /// The seqs of every component, each sorted; found from the records' subject keys alone (no decoding).
    public func components() throws(ServiceError) -> [[UInt64]] {
        try componentMap().components
    }

    /// Calls `body` with the decoded entries of each component, in the order of their first records.
    public func forEachComponent(progress: ((Int) -> Void)? = nil, _ body: ([LedgerEntry]) throws(ServiceError) -> Void)
        throws(ServiceError)
    {
        var done = 0
        let eventLog = log as? any RecordViews
        for component in try components() {
            var entries: [LedgerEntry] = []
            entries.reserveCapacity(component.count)
            if let eventLog {
                try Self.mapErrors {
                    try eventLog.forEachRecord(seqs: component) { view in
                        entries.append(try Self.entry(of: view))
                    }
                }
            } else {
                for seq in component { entries.append(try entry(seq: seq)) }
            }
            try body(entries)
            done += component.count
            progress?(done)
        }
    }

    /// Decodes a record read in place.
    static func entry(of view: LogRecordView) throws(ServiceError) -> LedgerEntry {
        LedgerEntry(
            seq: view.seq, recordedAt: Instant(milliseconds: view.recordedAt),
            record: try record(seq: view.seq, decoding: view.payload))
    }

    /// Runs `body`, turning the untyped errors of the log's closures back into ``ServiceError``.
    static func mapErrors(_ body: () throws -> Void) throws(ServiceError) {
        do {
            try body()
        } catch let error as ServiceError {
            throw error
        } catch let error as LogError {
            throw ServiceError(error)
        } catch {
            throw ServiceError(.other, "reading the log: \(error)")
        }
    }
}
