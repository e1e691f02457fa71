import LedgerCore
import LedgerCrypto
import LedgerStore
import LedgerSystem

/// The catalog as records: every version of the product catalog is a record of the log (``RecordSource/catalog``),
/// indexed under ``catalogKey``, so that the same log gives the same answers whoever reads it and whatever they pass.
///
/// A log without any catalog record (one written before catalog records existed, or any log while
/// ``recordsBuiltInCatalog`` is off) is read with the built-in catalog (``CatalogVersion/builtIn``) in force from
/// the beginning of time, as it always was. With ``recordsBuiltInCatalog``, a fresh log's first write, whatever makes
/// it (ingest, serve, demo, link, correct, `catalog set`), records that built-in catalog before its own records: the
/// one place both stores get their first record is ``append(checked:)``. It is off by default (it shifts every seq
/// of a fresh log by one, which the feed's cursors and the tests' fixtures assume they know); the answers are the
/// same either way. An import copies an export's records as they are (their chain must match), and adds none.
extension Ledger {
    /// The subject key every catalog record is indexed under.
    public static let catalogKey = "c:catalog"

    /// How long the catalog versions read are kept before they are read again, in milliseconds: a version another
    /// process appends (another server on the same PostgreSQL database) is in force here within this time; one this
    /// ledger appends, at once.
    public static let catalogRefreshMilliseconds = 1_000

    /// The catalog versions the log holds (kept for ``catalogRefreshMilliseconds``; after this ledger appends a
    /// version, read again). A log whose catalog records cannot be read is read with the built-in catalog
    /// (`ledger verify` reports the damage).
    public var catalogHistory: CatalogHistory {
        let now = SystemClock.monotonicMilliseconds()
        if let cached = catalogCache.withLock({ $0 }), now - cached.readAt < Self.catalogRefreshMilliseconds {
            return cached.history
        }
        let history = (try? readCatalogHistory()) ?? CatalogHistory([])
        catalogCache.withLock { $0 = (history, now) }
        return history
    }

    /// Reads every catalog record of the log.
    ///
    /// - Throws: ``ServiceError`` when the log cannot be read or a catalog record does not decode.
    public func readCatalogHistory() throws(ServiceError) -> CatalogHistory {
        var entries: [CatalogHistory.Entry] = []
        try Self.mapErrors {
            try log.forEachPayload(forSubjectKey: Self.catalogKey, skipping: []) { seq, recordedAt, payload in
                let record = try Self.record(seq: seq, decoding: payload)
                guard let version = record.catalog else { return }
                entries.append(
                    CatalogHistory.Entry(seq: seq, recordedAt: Instant(milliseconds: recordedAt), version: version))
            }
        }
        return CatalogHistory(entries)
    }

    /// The record of a catalog version.
    static func catalogRecord(_ version: CatalogVersion, environment: LedgerEnvironment, key: String) -> LedgerRecord {
        LedgerRecord(
            environment: environment, source: .catalog, idempotencyKey: key, subject: Subject(), catalog: version)
    }

    /// The built-in catalog's entry, when `items` are the first a fresh log is given (nil otherwise): in the
    /// environment of the first of them.
    func genesisEntry(before items: [(entry: LogEntry, evidence: HashedBytes?)]) throws(ServiceError) -> LogEntry? {
        guard recordsBuiltInCatalog, log.head.seq == 0, let first = items.first,
            first.entry.idempotencyKey != CatalogVersion.builtInKey,
            let record = try? LedgerRecord(decoding: first.entry.payload)
        else { return nil }
        catalogCache.withLock { $0 = nil }
        return try Self.logEntry(
            for: Self.catalogRecord(.builtIn, environment: record.environment, key: CatalogVersion.builtInKey))
    }

    /// Appends a catalog version: from `version.effectiveFrom` on, every period that starts then or later takes its
    /// products' kinds, devices, periods and prices from it. A version with the same products, time and words as
    /// one the log holds is a duplicate (nothing appended).
    ///
    /// - Throws: ``ServiceError`` `invalidInput` for a log that holds no record yet (it has no environment) or a
    ///   version too large to store; nothing is appended.
    public func setCatalog(_ version: CatalogVersion) throws(ServiceError) -> AppendOutcome {
        let record = Self.catalogRecord(
            version, environment: try boundEnvironment(), key: Self.catalogKey(for: version))
        defer { catalogCache.withLock { $0 = nil } }
        return try append([(record, nil)])[0]
    }

    /// A catalog version's idempotency key: `catalog:<hex>` over its encoding.
    static func catalogKey(for version: CatalogVersion) -> String {
        let probe = Self.catalogRecord(version, environment: LedgerEnvironment(rawValue: ""), key: "")
        return "catalog:" + Hex.encode(SHA256.hash(probe.encoded()).prefix(16))
    }
}
