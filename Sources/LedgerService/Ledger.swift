import LedgerCore
import LedgerCrypto
import LedgerLog
import LedgerStore
import LedgerSystem
import Synchronization

/// The ledger: the log plus the domain on top of it. Appends records with their evidence, reads them
/// back as ``LedgerEntry`` values, and answers state and history queries through the pure fold.
///
/// Thread-safe: the log serialises appends (group commit) and reads are independent.
public final class Ledger: Sendable {
    /// The underlying store: the file log, or another ``RecordStore``. Only the ledger reaches it: callers use
    /// the ledger's own members (see `Ledger+Store.swift`).
    let log: any RecordStore
    /// The catalog versions the log holds and when they were read (monotonic ms), kept for a while
    /// (``catalogHistory``) and read again after this ledger appends one.
    let catalogCache = Mutex<(history: CatalogHistory, readAt: Int)?>(nil)

    /// Whether a fresh log's first write records the built-in catalog first (``genesisEntry(before:)``).
    public let recordsBuiltInCatalog: Bool

    /// Wraps an open store. The catalog comes from the log (``catalogHistory``), nowhere else. With
    /// `recordsBuiltInCatalog`, a fresh log's first write records the built-in catalog as its seq 1 (off by default:
    /// it shifts every later seq of a fresh log by one; a log without a catalog record answers the same).
    public init(log: any RecordStore, recordsBuiltInCatalog: Bool = false) {
        self.log = log
        self.recordsBuiltInCatalog = recordsBuiltInCatalog
    }

    /// The product catalog in force from the latest version's effective time on (the built-in one for a log that
    /// records none).
    public var catalog: Catalog { fold.catalog }

    /// The fold, over the catalog versions the log holds.
    public var fold: EntitlementFold { EntitlementFold(catalogs: catalogHistory) }

    /// Where the ledger's records name their evidence, for the log (``LedgerRecord/evidenceRange(inEncoded:)``):
    /// give it to `EventLog.verify` and `EventLog.repair` so that they tell evidence records rely on from a torn
    /// pack tail (``openWriter(at:environment:app:fileSystem:options:)`` gives it to the log itself).
    public static let evidenceReferences: EvidenceReferenceFinder = { LedgerRecord.evidenceRange(inEncoded: $0) }

    /// A reader of the ledger's records for `EventLog.verify`: each payload decoded with every check the whole
    /// decoder makes (the fold's decoder made strict, which refuses exactly what ``LedgerRecord/init(decoding:)``
    /// refuses, with the same error, at a third of its cost), so that `verify` also finds a record this build cannot read (one
    /// of a newer encoding, or bytes the writer never wrote). One reader serves one walk, on one thread.
    public static func recordReader() -> RecordReader {
        var batch = FoldRecords(strict: true)
        return { payload in
            if batch.count >= 64 { batch.removeAll() }
            do throws(CoreError) {
                try batch.append(seq: 0, recordedAt: Instant(milliseconds: 0), payload: payload)
                return nil
            } catch {
                return error.message
            }
        }
    }

    /// Opens a data directory for writing, bound to `environment` and `app` (a directory bound to another
    /// environment or app is refused; `app` is recorded at the first write, see ``LedgerStore/AppIdentity``).
    public static func openWriter(
        at directory: String, environment: LedgerEnvironment?, app: AppIdentity? = nil,
        fileSystem: any FileSystem = PosixFileSystem(), options: LogOptions = .init()
    ) throws(ServiceError) -> Ledger {
        var options = options
        options.evidenceReferences = evidenceReferences
        do {
            let log = try EventLog.openWriter(
                at: directory, environment: environment?.rawValue, app: app, options: options,
                fileSystem: fileSystem)
            return Ledger(log: log)
        } catch {
            throw ServiceError(error)
        }
    }

    /// Opens a data directory for reading (no lock; an empty or missing directory reads as empty).
    public static func openReader(at directory: String) throws(ServiceError) -> Ledger {
        do {
            return Ledger(log: try EventLog.openReader(at: directory))
        } catch {
            throw ServiceError(error)
        }
    }

    /// The environment the data directory is bound to, once anything was written.
    public var environment: LedgerEnvironment? {
        log.environment.map(LedgerEnvironment.init(rawValue:))
    }

    /// The app the data directory is bound to (bundle id and, in production, App Apple ID), once a write named one.
    public var appIdentity: AppIdentity? { log.binding.app }

    /// Appends records, each with the raw signed payload it came from (kept as evidence first, so a
    /// durable record never points at missing evidence). Durable on return; duplicates (same
    /// idempotency key, in the log or earlier in the call) are reported, not appended.
    public func append(_ items: [(record: LedgerRecord, evidence: HashedBytes?)]) throws(ServiceError)
        -> [AppendOutcome]
    {
        var checked: [(entry: LogEntry, evidence: HashedBytes?)] = []
        checked.reserveCapacity(items.count)
        for item in items {
            var record = item.record
            if let evidence = item.evidence { record.evidence = evidence.sha256 }
            checked.append((try Self.logEntry(for: record), item.evidence))
        }
        return try append(checked: checked)
    }

    /// ``append(_:)`` of entries made by ``logEntry(for:)`` from records that reference their evidence already
    /// (the ingest pipeline checks each record on its verification threads; the commit then encodes nothing).
    func append(checked items: [(entry: LogEntry, evidence: HashedBytes?)]) throws(ServiceError) -> [AppendOutcome] {
        // A fresh log's first write records the built-in catalog first (see `Ledger+Catalog.swift`).
        let genesis = try genesisEntry(before: items)
        do {
            let withEvidence = items.compactMap(\.evidence)
            // Evidence is stored without its own sync; the append that follows makes it durable before the
            // records (one flush shared by every concurrent caller of the group commit). Each body was hashed
            // once, when it was verified.
            if !withEvidence.isEmpty { try log.putEvidence(hashed: withEvidence, durable: false) }
            if let genesis {
                let outcomes = try log.append(
                    [genesis] + items.map(\.entry), syncingEvidenceFirst: !withEvidence.isEmpty)
                return Array(outcomes.dropFirst())
            }
            return try log.append(items.map(\.entry), syncingEvidenceFirst: !withEvidence.isEmpty)
        } catch {
            throw ServiceError(error)
        }
    }

    /// The log entry of a record, checked to be storable: its encoding reads back (every string within the
    /// decoder's limits) and its idempotency and subject keys fit the log's. The ledger appends nothing it could
    /// not read again; callers that take many records check each one first (``IngestPipeline``, reconcile) so
    /// one bad item is refused alone.
    ///
    /// - Throws: ``ServiceError`` `invalidInput` saying what does not fit.
    public static func logEntry(for record: LedgerRecord) throws(ServiceError) -> LogEntry {
        let entry: LogEntry
        do {
            entry = LogEntry(
                idempotencyKey: record.idempotencyKey, subjectKeys: SubjectKeys.keys(for: record),
                payload: try record.storableEncoding())
            try entry.validate()
        } catch let error as CoreError {
            throw ServiceError(.invalidInput, error.message)
        } catch let error as LogError {
            throw ServiceError(.invalidInput, "the record cannot be stored: \(error.message)")
        } catch {
            throw ServiceError(.invalidInput, "the record cannot be stored: \(error)")
        }
        return entry
    }

    /// Writes a notification's evidence again when the copy the ledger holds is damaged or missing (see
    /// ``LedgerLog/EventLog/restoreEvidence(_:)``); returns whether it did. The PostgreSQL store keeps its evidence
    /// table append-only (a damaged row is restored from a backup there): false.
    public func restoreEvidence(_ piece: HashedBytes) throws(ServiceError) -> Bool {
        guard let eventLog = log as? any StoreMaintenance else { return false }
        do {
            return try eventLog.restoreEvidence(piece)
        } catch {
            throw ServiceError(error)
        }
    }

    /// The seq of the record with this idempotency key, if the ledger holds it.
    public func seq(forIdempotencyKey key: String) throws(ServiceError) -> UInt64? {
        do {
            return try log.seq(forIdempotencyKey: key)
        } catch {
            throw ServiceError(error)
        }
    }

    /// The entry at `seq`, decoded.
    public func entry(seq: UInt64) throws(ServiceError) -> LedgerEntry {
        do {
            return try Self.entry(from: log.record(seq: seq))
        } catch let error as LogError {
            throw ServiceError(error)
        } catch {
            throw ServiceError(.damaged, "record \(seq) does not decode: \(error)")
        }
    }

    /// Decodes a log record into an entry.
    public static func entry(from record: LogRecord) throws(ServiceError) -> LedgerEntry {
        do {
            return LedgerEntry(
                seq: record.seq, recordedAt: Instant(milliseconds: record.recordedAt),
                record: try LedgerRecord(decoding: record.payload))
        } catch {
            throw ServiceError(
                .damaged, "record \(record.seq) in \(record.segment) at byte \(record.offset) does not decode: \(error)"
            )
        }
    }

    /// Decodes the payload of record `seq`.
    static func record(seq: UInt64, decoding payload: UnsafeRawBufferPointer) throws(ServiceError) -> LedgerRecord {
        try decoding(seq) { () throws(CoreError) in try LedgerRecord(decoding: payload) }
    }

    /// Runs `body`, which decodes record `seq`; a decoding error becomes ``ServiceError/Code/damaged``.
    @inline(__always)
    static func decoding<Value>(_ seq: UInt64, _ body: () throws(CoreError) -> Value) throws(ServiceError) -> Value {
        do {
            return try body()
        } catch {
            throw ServiceError(.damaged, "record \(seq) does not decode: \(error)")
        }
    }

    /// Every entry that may be about the subject: those indexed under its key, and for users and
    /// accounts every record of the subscriptions they name (orphan records, later re-signings).
    /// The fold decides ownership.
    public func entries(for query: SubjectQuery) throws(ServiceError) -> [LedgerEntry] {
        var entries: [LedgerEntry] = []
        entries.reserveCapacity(32)
        try forEachRecord(about: query) { seq, recordedAt, payload throws(ServiceError) in
            let record = try Self.record(seq: seq, decoding: payload)
            entries.append(LedgerEntry(seq: seq, recordedAt: Instant(milliseconds: recordedAt), record: record))
            return FoldRecords.Named(
                subject: record.subject.originalTransactionId, transaction: record.transaction?.originalTransactionId)
        } owners: {
            var keys: [String] = []
            for entry in entries {
                let subject = entry.record.subject
                let key =
                    subject.userId.map(SubjectKeys.user)
                    ?? subject.appAccountToken.map { SubjectKeys.key(for: .account($0)) }
                if let key, !keys.contains(key) { keys.append(key) }
            }
            return keys
        }
        return entries
    }

    /// The records of ``entries(for:)``, decoded for the fold alone (the same answers, a fraction of the work).
    public func foldRecords(for query: SubjectQuery) throws(ServiceError) -> FoldRecords {
        var records = FoldRecords()
        try forEachRecord(about: query) { seq, recordedAt, payload throws(ServiceError) in
            try Self.addNaming(seq: seq, recordedAt: recordedAt, payload: payload, to: &records)
        } owners: {
            let owners = records.subjectOwners
            // An account token of the user scheme is that user's key.
            return owners.users.map(SubjectKeys.user) + owners.accounts.map { SubjectKeys.key(for: .account($0)) }
        }
        return records
    }

    /// Decodes record `seq`'s payload into a batch for the fold.
    static func add(seq: UInt64, recordedAt: Int64, payload: UnsafeRawBufferPointer, to records: inout FoldRecords)
        throws(ServiceError)
    {
        try decoding(seq) { () throws(CoreError) in
            try records.append(seq: seq, recordedAt: Instant(milliseconds: recordedAt), payload: payload)
        }
    }

    /// ``add(seq:recordedAt:payload:to:)``, returning the subscriptions the record names.
    static func addNaming(
        seq: UInt64, recordedAt: Int64, payload: UnsafeRawBufferPointer, to records: inout FoldRecords
    ) throws(ServiceError) -> FoldRecords.Named {
        try decoding(seq) { () throws(CoreError) in
            try records.appendNaming(seq: seq, recordedAt: Instant(milliseconds: recordedAt), payload: payload)
        }
    }

    /// The subject's entitlement at valid time `at` as known at `knownAt` (nil: everything).
    public func state(of query: SubjectQuery, at: Instant, knownAt: Instant?) throws(ServiceError) -> EntitlementState {
        fold.state(of: query, records: try foldRecords(for: query), at: at, knownAt: knownAt)
    }

    /// The subject's records in effective-time order (then by seq), limited to those appended by
    /// `knownAt` and effective by `asOf` when given.
    public func history(of query: SubjectQuery, asOf: Instant? = nil, knownAt: Instant? = nil) throws(ServiceError)
        -> [LedgerEntry]
    {
        try ownedEntries(for: query, knownAt: knownAt)
            .filter { entry in asOf.map { entry.effectiveAt <= $0 } ?? true }
            .sorted { ($0.effectiveAt, $0.seq) < ($1.effectiveAt, $1.seq) }
    }

    /// The entries appended by `knownAt` about the subject's own subscriptions, as owned by then (a link
    /// recorded later has not yet made an orphan the user's), and its operator records, without records of
    /// subscriptions that belong to someone else. A subscription's history also holds the corrections addressed
    /// to its owner, which change its state (a revoke of the user's).
    func ownedEntries(for query: SubjectQuery, knownAt: Instant?) throws(ServiceError) -> [LedgerEntry] {
        let entries = try entries(for: query).filter { entry in knownAt.map { entry.recordedAt <= $0 } ?? true }
        let subscriptions = fold.subscriptions(in: entries, at: .distantFuture, knownAt: nil)
        let owned = Set(subscriptions.filter { $0.owner.matches(query) }.map(\.state.originalTransactionId))
        var owners: [SubjectQuery] = []
        if case .originalTransaction(let otid) = query {
            for subscription in subscriptions where subscription.state.originalTransactionId == otid {
                let owner = subscription.owner
                if let query = owner.userId.map(SubjectQuery.user) ?? owner.appAccountToken.map(SubjectQuery.account) {
                    owners.append(query)
                }
            }
        }
        return entries.filter { entry in
            let subject = entry.record.subject
            if let otid = subject.originalTransactionId ?? entry.record.transaction?.originalTransactionId {
                return owned.contains(otid) || subject.matches(query)
            }
            if entry.record.source == .correction, owners.contains(where: subject.matches) { return true }
            return subject.matches(query)
        }
    }
}
