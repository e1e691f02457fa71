import LedgerCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// The storage seam: what the ledger needs from wherever its records live. The file log
/// (``EventLog``) is the embedded default; another engine (PostgreSQL) implements the same contract.
///
/// The contract, which a conformance suite checks for every store:
/// - records get a gap-free sequence number starting at 1, in append order, and a chain hash
///   SHA-256(previous hash ‖ record) from the environment's genesis hash;
/// - an append is all-or-nothing and durable on return; an entry whose idempotency key is already stored
///   (or earlier in the same call) is reported as a duplicate and not stored again;
/// - the store is bound to one environment at its first append, and to the app identity its writer names (at the
///   first append that names one); a writer naming another environment or app is refused;
/// - evidence is content-addressed by SHA-256 and durable before the records that reference it.
public protocol RecordStore: AnyObject, Sendable {
    /// The last record's seq (0 when empty) and its chain hash.
    var head: (seq: UInt64, hash: [UInt8]) { get }
    /// The last record's recorded time (ms since the epoch; 0 when empty).
    var headTime: Int64 { get }
    /// The environment the store is bound to, once anything was appended.
    var environment: String? { get }
    /// The app the store is bound to (bundle id and, in production, App Apple ID), once a write named one.
    var appIdentity: AppIdentity? { get }
    /// Where the store lives, for messages (a directory or a connection string without its password).
    var path: String { get }
    /// Whether this handle may append.
    var isWriter: Bool { get }
    /// What recovery did on open (a cut torn tail), if anything.
    var recovery: RecoveryReport? { get }
    /// What recovery cut off the evidence on open (a torn tail no record refers to), if anything.
    var evidenceRecovery: EvidenceRecovery? { get }
    /// The number of distinct subject keys indexed.
    var subjectCount: Int { get }

    /// Appends entries durably; see the contract above.
    func append(_ entries: [LogEntry]) throws(LogError) -> [AppendOutcome]
    /// Appends entries whose evidence was stored with `putEvidence(batch:durable: false)`: the store makes that
    /// evidence durable before the records (the file log shares one flush among concurrent callers).
    func append(_ entries: [LogEntry], syncingEvidenceFirst: Bool) throws(LogError) -> [AppendOutcome]
    /// The record at `seq`.
    func record(seq: UInt64) throws(LogError) -> LogRecord
    /// Every record from `seq` on, in order.
    func forEach(from seq: UInt64, _ body: (LogRecord) throws -> Void) throws
    /// The seqs of the records indexed under a subject key, ascending.
    func seqs(forSubjectKey key: String) throws(LogError) -> [UInt64]
    /// The records indexed under a subject key, ascending, leaving out the seqs in `skipping` (not read at all).
    func records(forSubjectKey key: String, skipping: Set<UInt64>) throws(LogError) -> [LogRecord]
    /// Calls `body` with the seq, recorded time and payload of each record indexed under a subject key,
    /// ascending, leaving out the seqs in `skipping`; the payload is valid only during the call.
    func forEachPayload(
        forSubjectKey key: String, skipping: Set<UInt64>, _ body: (UInt64, Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws
    /// The seq of the record with this idempotency key, if stored.
    func seq(forIdempotencyKey key: String) throws(LogError) -> UInt64?
    /// Stores evidence payloads durably; returns their SHA-256 digests.
    func putEvidence(batch: [[UInt8]]) throws(LogError) -> [[UInt8]]
    /// Stores evidence payloads, durably or (`durable: false`) to be made durable by the next
    /// `append(_:syncingEvidenceFirst: true)`; returns their SHA-256 digests.
    func putEvidence(batch: [[UInt8]], durable: Bool) throws(LogError) -> [[UInt8]]
    /// `putEvidence(batch:durable:)` for evidence whose SHA-256 is already known (hashed while it was verified).
    func putEvidence(hashed batch: [HashedBytes], durable: Bool) throws(LogError)
    /// The evidence with this SHA-256, if stored.
    func evidence(_ sha256: [UInt8]) throws(LogError) -> [UInt8]?
    /// Keeps a derived file (a projection snapshot) tagged with the log position it covers.
    func writeDerived(_ name: String, _ bytes: [UInt8], coveredSeq: UInt64, headHash: [UInt8]) throws(LogError)
    /// A derived file, when present, intact and matching the current head.
    func readDerived(_ name: String) -> DerivedFile.Snapshot?
    /// Rebuilds the indexes from the records.
    func rebuildIndexes(progress: ((UInt64) -> Void)?) throws(LogError)
    /// Waits until a record after `seq` is stored or `timeoutMillis` pass; returns the head seq then.
    func waitForHead(after seq: UInt64, timeoutMillis: Int) -> UInt64
    /// Releases the store (and the writer lock).
    func close()
}

extension RecordStore {
    /// Stores without evidence packs have nothing of them to cut.
    public var evidenceRecovery: EvidenceRecovery? { nil }

    /// Polls the head, backing off from 5 to 50 ms, for stores that cannot be woken by their writer.
    public func waitForHead(after seq: UInt64, timeoutMillis: Int) -> UInt64 {
        var waited = 0
        var pause = 5
        while head.seq <= seq, waited < timeoutMillis {
            let step = min(pause, timeoutMillis - waited)
            usleep(UInt32(step) * 1000)
            waited += step
            pause = min(pause * 2, 50)
        }
        return head.seq
    }

    /// Through ``seqs(forSubjectKey:)`` and ``record(seq:)``, for stores with nothing faster.
    public func records(forSubjectKey key: String, skipping: Set<UInt64>) throws(LogError) -> [LogRecord] {
        var records: [LogRecord] = []
        for seq in try seqs(forSubjectKey: key) where !skipping.contains(seq) { records.append(try record(seq: seq)) }
        return records
    }

    /// Through ``records(forSubjectKey:skipping:)``, for stores with nothing faster.
    public func forEachPayload(
        forSubjectKey key: String, skipping: Set<UInt64>, _ body: (UInt64, Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        for record in try records(forSubjectKey: key, skipping: skipping) {
            try record.payload.withUnsafeBytes { try body(record.seq, record.recordedAt, $0) }
        }
    }

    /// Stores that make evidence durable on every put need nothing more before the records.
    public func append(_ entries: [LogEntry], syncingEvidenceFirst: Bool) throws(LogError) -> [AppendOutcome] {
        try append(entries)
    }

    /// Stores without a cheaper unsynced path store durably.
    public func putEvidence(batch: [[UInt8]], durable: Bool) throws(LogError) -> [[UInt8]] {
        try putEvidence(batch: batch)
    }

    /// Stores that hash evidence themselves do so again.
    public func putEvidence(hashed batch: [HashedBytes], durable: Bool) throws(LogError) {
        _ = try putEvidence(batch: batch.map(\.bytes), durable: durable)
    }
}

extension EventLog: RecordStore {}
