import LedgerCore
import LedgerService
import LedgerStore
import LedgerTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The catalog as records, on every store: with `recordsBuiltInCatalog`, the built-in catalog is the first record of
/// a fresh log (without it, a log holds no catalog record and reads with the built-in one; the other checks), versions
/// appended later change only the periods that start from their effective time, and any reader of the store gets
/// the same answers.
extension Conformance {
    /// The built-in catalog with monthly_3 giving `devices`, in force from `from`.
    static func monthly3(devices: Int, from: Instant) -> CatalogVersion {
        var products = Catalog.visla.products
        let index = products.firstIndex { $0.id == "com.visla.gps.monthly_3" }!
        products[index].devices = devices
        return CatalogVersion(
            catalog: Catalog(products: products), effectiveFrom: from, reason: "devices \(devices)",
            operatorName: "ops")
    }

    static func catalogVersions(_ harness: some StoreHarness) throws {
        let clock = ManualClock()
        let store = try harness.openWriter(environment: LedgerEnvironment.sandbox.rawValue, clock: clock.function)
        defer { store.close() }
        let ledger = Ledger(log: store, recordsBuiltInCatalog: true)
        let items = purchaseThenRefund()
        clock.set(RecordBuilders.instant("2026-01-01T00:00:01Z"))
        #expect(try ledger.append([items[0]]).map(\.seq) == [2])
        clock.set(RecordBuilders.instant("2026-01-10T00:00:01Z"))
        _ = try ledger.append([items[1]])
        // The first write recorded the built-in catalog first: seq 1, then the purchase (2) and the refund (3).
        let first = try ledger.entry(seq: 1).record
        #expect(first.source == .catalog)
        #expect(first.idempotencyKey == CatalogVersion.builtInKey)
        #expect(first.catalog == .builtIn)
        #expect(try ledger.entry(seq: 2).record.transaction?.productId == "com.visla.gps.monthly_3")
        #expect(ledger.catalogHistory.entries.map(\.seq) == [1])
        let at = RecordBuilders.instant("2026-01-05T00:00:00Z")
        let knownBefore = RecordBuilders.instant("2026-01-09T00:00:00Z")
        #expect(try ledger.state(of: .user(42), at: at, knownAt: knownBefore).deviceLimit == 3)

        // From 2 January on monthly_3 gives 5: the period bought 1 January keeps 3.
        clock.set(RecordBuilders.instant("2026-01-20T00:00:00Z"))
        let later = monthly3(devices: 5, from: RecordBuilders.instant("2026-01-02T00:00:00Z"))
        #expect(try ledger.setCatalog(later).seq == 4)
        #expect(try ledger.state(of: .user(42), at: at, knownAt: knownBefore).deviceLimit == 3)
        // From 1 December 2025 on it gives 7: the period takes 7, as known once that version is recorded.
        clock.set(RecordBuilders.instant("2026-01-21T00:00:00Z"))
        let earlier = monthly3(devices: 7, from: RecordBuilders.instant("2025-12-01T00:00:00Z"))
        #expect(try ledger.setCatalog(earlier).seq == 5)
        #expect(try ledger.setCatalog(earlier) == .duplicate(seq: 5))
        let subscriptions = try ledger.state(of: .user(42), at: at, knownAt: nil).subscriptions
        #expect(subscriptions.map(\.devices) == [7])
        #expect(
            try ledger.state(
                of: .user(42), at: at, knownAt: RecordBuilders.instant("2026-01-20T12:00:00Z")
            ).subscriptions.map(\.devices) == [3])
        // Another reader of the same store reads the same versions, so gives the same answers.
        let reader = Ledger(log: store)
        #expect(reader.catalogHistory == ledger.catalogHistory)
        #expect(reader.catalogHistory.entries.map(\.seq) == [1, 5, 4])
        #expect(try reader.state(of: .user(42), at: at, knownAt: nil).subscriptions.map(\.devices) == [7])
    }

    /// A version another handle appends (another server on the same database) is in force here within the refresh
    /// time; one this handle appends, at once.
    static func catalogVersionsOfOtherWriters(_ harness: some StoreHarness) throws {
        let clock = ManualClock()
        let store = try harness.openWriter(environment: LedgerEnvironment.sandbox.rawValue, clock: clock.function)
        defer { store.close() }
        let mine = Ledger(log: store)
        let other = Ledger(log: store)
        clock.set(RecordBuilders.instant("2026-01-01T00:00:01Z"))
        _ = try mine.append([purchaseThenRefund()[0]])
        #expect(mine.catalogHistory.entries.isEmpty)
        clock.set(RecordBuilders.instant("2026-01-02T00:00:00Z"))
        let version = monthly3(devices: 5, from: RecordBuilders.instant("2025-12-01T00:00:00Z"))
        #expect(try other.setCatalog(version).seq == 2)
        #expect(other.catalogHistory.entries.map(\.seq) == [2], "the appending handle reads it at once")
        let at = RecordBuilders.instant("2026-01-05T00:00:00Z")
        #expect(try other.state(of: .user(42), at: at, knownAt: nil).deviceLimit == 5)
        usleep(useconds_t(Ledger.catalogRefreshMilliseconds * 1_000 + 100_000))
        #expect(mine.catalogHistory.entries.map(\.seq) == [2], "the other handle within the refresh time")
        #expect(try mine.state(of: .user(42), at: at, knownAt: nil).deviceLimit == 5)
    }
}
