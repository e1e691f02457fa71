import LedgerCrypto
import LedgerStore

/// A store that lends its records in place, as views over its own buffers, and keeps their grouping by
/// subject: the fast paths of queries, projections and rebuilds. The file log is one; a store that is not is
/// read through ``RecordStore``'s copies instead.
public protocol RecordViews: RecordStore {
    /// Calls `body` with each record from `seq` on, in place (the view is valid only during the call), with
    /// its segment's name and its offset there.
    func forEachView(
        from seq: UInt64, _ body: (LogRecordView, _ segment: String, _ offset: Int64) throws -> Void) throws

    /// Calls `body` with each record of `seqs` (ascending, each in the log) in place, in that order.
    func forEachRecord(seqs: [UInt64], _ body: (LogRecordView) throws -> Void) throws

    /// Calls `body` with each record indexed under `key` in place, ascending, leaving out the seqs of `seen`
    /// (ascending).
    func forEachRecord(
        forSubjectKey key: String, skippingSorted seen: [UInt64], _ body: (LogRecordView) throws -> Void) throws

    /// An image of the records up to the head (``LogImage``), `scan` run over it while its copies are read;
    /// nil when the segments to copy into memory hold more than `copyLimit` bytes.
    func image(copyLimit: Int, whileReading scan: (LogImage) throws -> Void) throws -> LogImage?

    /// The components of every record up to the head, when the store's index files cover exactly the head.
    func recordComponents() -> (components: RecordComponents, coveredSeq: UInt64)?
}

/// The repairs and reports a store may offer beyond ``RecordStore``.
public protocol StoreMaintenance: RecordStore {
    /// Records a repair moved aside and the store no longer holds, if any.
    var lostRecords: LostRecords? { get }

    /// Calls `observer` with the number of new records of every group commit from now on. It runs on the
    /// committing thread: keep it cheap and never call back into the store.
    func observeBatches(_ observer: @escaping @Sendable (Int) -> Void)

    /// Writes `piece` again when the copy the store holds is damaged or missing; returns whether it did.
    func restoreEvidence(_ piece: HashedBytes) throws(LogError) -> Bool
}
