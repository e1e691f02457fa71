import LedgerLog
import LedgerStore

/// What callers need of the store under the ledger, so that none reaches through it: its head, what opening it
/// found, its lifecycle, and the maintenance an engineer runs.
extension Ledger {
    /// The last record's seq and chain hash (seq 0 and the genesis hash for an empty ledger).
    public var head: (seq: UInt64, hash: [UInt8]) { log.head }

    /// When the last record was recorded, in milliseconds since 1970 (0 for an empty ledger).
    public var headTime: Int64 { log.headTime }

    /// Where the ledger lives: the data directory, or the store's address with any secret left out.
    public var place: String { log.opening.path }

    /// How many distinct subject keys the ledger indexes.
    public var subjectCount: Int { (log as? any RebuildableIndexes)?.subjectCount ?? 0 }

    /// What opening the ledger for writing repaired: a torn log tail cut off, if anything.
    public var recovery: RecoveryReport? { log.opening.recovery }

    /// What opening the ledger for writing cut off a torn evidence pack, if anything.
    public var evidenceRecovery: EvidenceRecovery? { log.opening.evidenceRecovery }

    /// Records a repair moved aside and the ledger no longer holds, when the store keeps such a report.
    public var lostRecords: LostRecords? { (log as? any StoreMaintenance)?.lostRecords }

    /// Waits until the head passes `seq` or `timeoutMillis` pass; returns the head's seq then.
    public func waitForHead(after seq: UInt64, timeoutMillis: Int) -> UInt64 {
        log.waitForHead(after: seq, timeoutMillis: timeoutMillis)
    }

    /// Calls `observer` with the size of every group commit from now on, when the store reports them (see
    /// ``LedgerLog/StoreMaintenance/observeBatches(_:)``).
    public func observeBatches(_ observer: @escaping @Sendable (Int) -> Void) {
        (log as? any StoreMaintenance)?.observeBatches(observer)
    }

    /// Calls `body` with every record from `seq` on, in order, each as the log holds it.
    public func forEachLogRecord(from seq: UInt64, _ body: (LogRecord) throws -> Void) throws(ServiceError) {
        try Self.mapErrors { try log.forEach(from: seq, body) }
    }

    /// The evidence stored under `sha256`, or nil when the ledger does not hold it.
    public func evidence(_ sha256: [UInt8]) throws(ServiceError) -> [UInt8]? {
        do {
            return try log.evidence(sha256)
        } catch {
            throw ServiceError(error)
        }
    }

    /// Re-derives the store's indexes from its records, reporting the records read so far (a store without
    /// indexes of its own has nothing to rebuild).
    public func rebuildIndexes(progress: ((UInt64) -> Void)? = nil) throws(ServiceError) {
        do {
            try (log as? any RebuildableIndexes)?.rebuildIndexes(progress: progress)
        } catch {
            throw ServiceError(error)
        }
    }

    /// Closes the store: a writer releases its lock. Reads and appends fail afterwards.
    public func close() { log.close() }
}
