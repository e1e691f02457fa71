/// One version of the product catalog, as an operator recorded it: the products in force from `effectiveFrom`
/// on, until a version with a later effective time. A version is a record of the log (``RecordSource/catalog``),
/// so that the same log gives the same answers whoever reads it; it never rewrites an earlier one.
public struct CatalogVersion: Hashable, Sendable {
    /// The products of this version.
    public var catalog: Catalog
    /// From when the version is in force: a period (a transaction's purchase to expiry, a pass, a grant) takes
    /// the version in force at its start. ``Instant/distantPast`` for the built-in catalog.
    public var effectiveFrom: Instant
    /// Why, in the operator's words.
    public var reason: String
    /// Who made it.
    public var operatorName: String

    /// Creates a catalog version.
    public init(catalog: Catalog, effectiveFrom: Instant, reason: String, operatorName: String) {
        self.catalog = catalog
        self.effectiveFrom = effectiveFrom
        self.reason = reason
        self.operatorName = operatorName
    }

    /// The built-in catalog (``Catalog/visla``) in force from the beginning of time: what a fresh log records at
    /// its first write, and what a log without any catalog record is read with.
    public static let builtIn = CatalogVersion(
        catalog: .visla, effectiveFrom: .distantPast, reason: "built-in catalog", operatorName: "ledger")

    /// The idempotency key of the built-in version: recorded once per log, however many writers race to it.
    public static let builtInKey = "catalog:built-in"
}

/// The catalog versions a log holds, each with the seq and time it was recorded: which version is in force at
/// any instant, as known at any time. Pure: the same versions in any order answer the same.
public struct CatalogHistory: Hashable, Sendable {
    /// One recorded version.
    public struct Entry: Hashable, Sendable {
        /// The seq of its record; 0 for the built-in catalog of a log that records none.
        public var seq: UInt64
        /// When it was recorded.
        public var recordedAt: Instant
        /// The version.
        public var version: CatalogVersion

        /// Creates an entry.
        public init(seq: UInt64, recordedAt: Instant, version: CatalogVersion) {
            self.seq = seq
            self.recordedAt = recordedAt
            self.version = version
        }
    }

    /// The versions, by effective time then seq (the later seq wins among versions effective together).
    public let entries: [Entry]
    /// Whether any version (or the built-in catalog, when there is none) sells a non-renewing pass: without one,
    /// the fold has no passes to stack and looks no product up for it.
    public let sellsPasses: Bool

    /// A history of these versions, in any order. With none, the built-in catalog is in force throughout.
    public init(_ entries: [Entry]) {
        self.entries = entries.sorted {
            $0.version.effectiveFrom != $1.version.effectiveFrom
                ? $0.version.effectiveFrom < $1.version.effectiveFrom : $0.seq < $1.seq
        }
        let catalogs = entries.isEmpty ? [Catalog.visla] : entries.map(\.version.catalog)
        sellsPasses = catalogs.contains { $0.products.contains { $0.kind == .nonRenewing } }
    }

    /// One catalog in force throughout (the fold's tests, and readers without a log).
    public init(catalog: Catalog) {
        self.init([
            Entry(
                seq: 0, recordedAt: .distantPast,
                version: CatalogVersion(
                    catalog: catalog, effectiveFrom: .distantPast, reason: "", operatorName: ""))
        ])
    }

    /// The history as known at `knownAt`: the versions recorded by then (all for nil).
    public func known(at knownAt: Instant?) -> CatalogHistory {
        guard let knownAt, entries.contains(where: { $0.recordedAt > knownAt }) else { return self }
        return CatalogHistory(entries.filter { $0.recordedAt <= knownAt })
    }

    /// The history with one more version (a proposed one: `ledger catalog set --dry-run`).
    public func adding(_ entry: Entry) -> CatalogHistory {
        CatalogHistory(entries + [entry])
    }

    /// The entry in force at `instant`: the latest effective at or before it; nil when none is (the built-in
    /// catalog is in force then).
    public func entry(at instant: Instant) -> Entry? {
        entries.last { $0.version.effectiveFrom <= instant }
    }

    /// The catalog in force at `instant` (the built-in one before any version recorded).
    public func catalog(at instant: Instant) -> Catalog {
        entry(at: instant)?.version.catalog ?? .visla
    }

    /// The effective times of the versions, each once, sorted: where a period's catalog can change.
    public var effectiveTimes: [Instant] {
        var times: [Instant] = []
        for entry in entries where times.last != entry.version.effectiveFrom {
            times.append(entry.version.effectiveFrom)
        }
        return times
    }
}
