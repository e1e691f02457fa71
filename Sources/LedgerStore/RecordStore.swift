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
public protocol RecordStore: EvidenceStorage, SubjectReading {
    /// The last record's seq (0 when empty) and its chain hash.
    var head: (seq: UInt64, hash: [UInt8]) { get }
    /// The last record's recorded time (ms since the epoch; 0 when empty).
    var headTime: Int64 { get }
    /// The environment and app the store is bound to (each set by the first write that names it).
    var binding: StoreBinding { get }
    /// Where the store lives, whether this handle writes, and what recovery did on open.
    var opening: StoreOpening { get }

    /// Appends entries durably; see the contract above. With `syncingEvidenceFirst`, the entries' evidence was
    /// stored with ``EvidenceStorage/putEvidence(hashed:durable:)`` `durable: false`, and the store makes it
    /// durable before the records (the file log shares one flush among concurrent callers).
    func append(_ entries: [LogEntry], syncingEvidenceFirst: Bool) throws(LogError) -> [AppendOutcome]
    /// The record at `seq`.
    func record(seq: UInt64) throws(LogError) -> LogRecord
    /// Every record from `seq` on, in order.
    func forEach(from seq: UInt64, _ body: (LogRecord) throws -> Void) throws
    /// The seq of the record with this idempotency key, if stored.
    func seq(forIdempotencyKey key: String) throws(LogError) -> UInt64?
    /// The seqs of the records indexed under a subject key, ascending.
    func seqs(forSubjectKey key: String) throws(LogError) -> [UInt64]
    /// Releases the store (and the writer lock).
    func close()
}

/// Evidence, content-addressed by SHA-256: the signed originals records refer to.
public protocol EvidenceStorage: AnyObject, Sendable {
    /// Stores evidence whose SHA-256 is known (hashed while it was verified): durably, or (`durable: false`) to
    /// be made durable by the next `append(_:syncingEvidenceFirst: true)`.
    func putEvidence(hashed batch: [HashedBytes], durable: Bool) throws(LogError)
    /// The evidence with this SHA-256, if stored.
    func evidence(_ sha256: [UInt8]) throws(LogError) -> [UInt8]?
}

/// What a store is bound to: set by its first write, refused to any later writer that names something else.
public struct StoreBinding: Sendable, Hashable {
    /// The environment, once anything was appended.
    public var environment: String?
    /// The app (bundle id and, in production, App Apple ID), once a write named one.
    public var app: AppIdentity?

    /// Creates a binding.
    public init(environment: String?, app: AppIdentity?) {
        self.environment = environment
        self.app = app
    }
}

/// What opening a store found.
public struct StoreOpening: Sendable, Hashable {
    /// Where the store lives, for messages (a directory, or a connection string without its password).
    public var path: String
    /// Whether this handle may append.
    public var isWriter: Bool
    /// What recovery did on open (a cut torn tail), if anything.
    public var recovery: RecoveryReport?
    /// What recovery cut off the evidence on open (a torn tail no record refers to), if anything.
    public var evidenceRecovery: EvidenceRecovery?

    /// Describes an opened store.
    public init(
        path: String, isWriter: Bool, recovery: RecoveryReport? = nil, evidenceRecovery: EvidenceRecovery? = nil
    ) {
        self.path = path
        self.isWriter = isWriter
        self.recovery = recovery
        self.evidenceRecovery = evidenceRecovery
    }
}

/// A store that keeps derived files (projection snapshots) tagged with the log position they cover.
public protocol DerivedFiles: RecordStore {
    /// Keeps a derived file covering the records up to `coveredSeq`, whose chain hash is `headHash`.
    func writeDerived(_ name: String, _ bytes: [UInt8], coveredSeq: UInt64, headHash: [UInt8]) throws(LogError)
    /// A derived file, when present, intact and matching the current head.
    func readDerived(_ name: String) -> DerivedSnapshot?
}

/// A store whose indexes can be counted and rebuilt from its records.
public protocol RebuildableIndexes: RecordStore {
    /// The number of distinct subject keys indexed.
    var subjectCount: Int { get }
    /// Rebuilds the indexes from the records, reporting the records read so far.
    func rebuildIndexes(progress: ((UInt64) -> Void)?) throws(LogError)
}

/// A store that answers a run of subject reads (a subject and the subscriptions its records name) as of one
/// head, checked once for the run rather than once a read.
public protocol SubjectSnapshots: RecordStore {
    /// Subject reads of the records up to the head as it is now; nil when the store has nothing better than
    /// the store's own ``SubjectReading/forEachPayload(forSubjectKey:skipping:_:)`` at the moment.
    func subjectSnapshot() throws(LogError) -> (any SubjectReading)?
}

/// Subject reads: a store's own, each as of the head when it runs, or a snapshot's (``SubjectSnapshots``), all as
/// of one head.
public protocol SubjectReading {
    /// Calls `body` with the seq, recorded time and payload of each record indexed under a subject key,
    /// ascending, leaving out the seqs in `skipping`; the payload is valid only during the call. A store's default
    /// reads ``RecordStore/seqs(forSubjectKey:)`` and then each ``RecordStore/record(seq:)``; a store that can do
    /// it in one read does.
    func forEachPayload(
        forSubjectKey key: String, skipping: Set<UInt64>, _ body: (UInt64, Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws
}

/// A store whose writer wakes readers waiting for new records.
public protocol HeadWaiting: RecordStore {
    /// Waits until a record after `seq` is stored or `timeoutMillis` pass; returns the head seq then.
    func waitForHead(after seq: UInt64, timeoutMillis: Int) -> UInt64
}

extension RecordStore {
    /// The environment the store is bound to, once anything was appended.
    public var environment: String? { binding.environment }

    /// ``append(_:syncingEvidenceFirst:)`` of entries whose evidence is durable already (or who have none).
    public func append(_ entries: [LogEntry]) throws(LogError) -> [AppendOutcome] {
        try append(entries, syncingEvidenceFirst: false)
    }

    /// Waits until a record after `seq` is stored or `timeoutMillis` pass: woken by the writer of a
    /// ``HeadWaiting`` store, else polling the head, backing off from 5 to 50 ms.
    public func waitForHead(after seq: UInt64, timeoutMillis: Int) -> UInt64 {
        if let waiting = self as? any HeadWaiting {
            return waiting.waitForHead(after: seq, timeoutMillis: timeoutMillis)
        }
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

    /// The records indexed under a subject key, ascending, leaving out the seqs in `skipping` (not read at all).
    public func records(forSubjectKey key: String, skipping: Set<UInt64>) throws(LogError) -> [LogRecord] {
        var records: [LogRecord] = []
        for seq in try seqs(forSubjectKey: key) where !skipping.contains(seq) { records.append(try record(seq: seq)) }
        return records
    }

    /// Calls `body` with the seq, recorded time and payload of each record indexed under a subject key,
    /// ascending, leaving out the seqs in `skipping`; the payload is valid only during the call.
    public func forEachPayload(
        forSubjectKey key: String, skipping: Set<UInt64>, _ body: (UInt64, Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        for record in try records(forSubjectKey: key, skipping: skipping) {
            try record.payload.withUnsafeBytes { try body(record.seq, record.recordedAt, $0) }
        }
    }
}

extension EvidenceStorage {
    /// Stores evidence payloads durably; returns their SHA-256 digests.
    @discardableResult
    public func putEvidence(batch: [[UInt8]], durable: Bool = true) throws(LogError) -> [[UInt8]] {
        let hashed = batch.map { HashedBytes($0) }
        try putEvidence(hashed: hashed, durable: durable)
        return hashed.map(\.sha256)
    }
}
