import LedgerCore
import LedgerTesting
import Testing

/// The catalog as records: each period takes the catalog version in force at its start.
@Suite("Catalog versions in the fold")
struct CatalogVersionFoldTests {
    static let jan20 = RecordBuilders.instant("2026-01-20T00:00:00Z")

    /// monthly_3 gives 5 devices instead of 3 from 20 January on.
    static var fiveDevices: CatalogVersion {
        var products = Catalog.visla.products
        let index = products.firstIndex { $0.id == Fixture.monthly(3) }!
        products[index].devices = 5
        return CatalogVersion(
            catalog: Catalog(products: products), effectiveFrom: jan20, reason: "more devices", operatorName: "ops")
    }

    static func history(recordedAt: Instant) -> CatalogHistory {
        CatalogHistory([
            CatalogHistory.Entry(seq: 1, recordedAt: .distantPast, version: .builtIn),
            CatalogHistory.Entry(seq: 9, recordedAt: recordedAt, version: fiveDevices),
        ])
    }

    /// A monthly_3 bought 10 January (period to 10 February), renewed 10 February (to 10 March).
    static var entries: [LedgerEntry] {
        var script = SubscriptionScript(originalTransactionId: "1000000100", userId: 100)
        var log = EntryLog()
        log.append(script.subscribe(Fixture.monthly(3), at: Fixture.p))
        log.append(script.renew())
        return log.entries
    }

    @Test("a version effective mid-period changes only the periods that start after it")
    func midPeriodChange() {
        let fold = EntitlementFold(catalogs: Self.history(recordedAt: Self.jan20))
        let entries = Self.entries
        // 25 January: the period began 10 January, before the version: 3 devices, as before.
        let before = fold.state(
            of: .user(100), entries: entries, at: RecordBuilders.instant("2026-01-25T00:00:00Z"),
            knownAt: nil)
        #expect(before.deviceLimit == 3)
        #expect(before.subscriptions.first?.expiresAt == Fixture.e1)
        // 15 February: the renewal's period began 10 February, after it: 5 devices.
        let after = fold.state(
            of: .user(100), entries: entries, at: RecordBuilders.instant("2026-02-15T00:00:00Z"),
            knownAt: nil)
        #expect(after.deviceLimit == 5)
        #expect(after.subscriptions.first?.expiresAt == Fixture.e2)
        // The built-in fold (no version) answers 3 throughout.
        let builtIn = EntitlementFold().state(
            of: .user(100), entries: entries, at: RecordBuilders.instant("2026-02-15T00:00:00Z"), knownAt: nil)
        #expect(builtIn.deviceLimit == 3)
    }

    @Test("as known before the version was recorded, the old catalog answers")
    func knownAtHidesALaterVersion() {
        let recorded = RecordBuilders.instant("2026-03-01T00:00:00Z")
        let fold = EntitlementFold(catalogs: Self.history(recordedAt: recorded))
        let at = RecordBuilders.instant("2026-02-15T00:00:00Z")
        let then = fold.state(of: .user(100), entries: Self.entries, at: at, knownAt: at)
        #expect(then.deviceLimit == 3)
        let now = fold.state(of: .user(100), entries: Self.entries, at: at, knownAt: nil)
        #expect(now.deviceLimit == 5)
        let all = fold.subscriptions(in: Self.entries, at: at, knownAt: at)
        #expect(all.map(\.state.devices) == [3])
    }

    @Test("the catalog record round-trips through both decoders, and the fold tolerates it in its input")
    func recordRoundTrip() throws {
        let record = LedgerRecord(
            environment: .sandbox, source: .catalog, idempotencyKey: "catalog:x", subject: Subject(),
            catalog: Self.fiveDevices)
        let bytes = try record.storableEncoding()
        #expect(try LedgerRecord(decoding: bytes) == record)
        let builtIn = LedgerRecord(
            environment: .sandbox, source: .catalog, idempotencyKey: CatalogVersion.builtInKey, subject: Subject(),
            catalog: .builtIn)
        #expect(try LedgerRecord(decoding: try builtIn.storableEncoding()) == builtIn)
        // With catalog records among its entries, the fold answers as without them.
        var entries = Self.entries
        entries.append(LedgerEntry(seq: 3, recordedAt: Fixture.e2, record: record))
        let fold = EntitlementFold()
        let at = RecordBuilders.instant("2026-02-15T00:00:00Z")
        #expect(
            fold.state(of: .user(100), entries: entries, at: at, knownAt: nil)
                == fold.state(of: .user(100), entries: Self.entries, at: at, knownAt: nil))
        var records = FoldRecords(strict: true)
        for entry in entries {
            try entry.record.encoded().withUnsafeBytes {
                try records.append(seq: entry.seq, recordedAt: entry.recordedAt, payload: $0)
            }
        }
        #expect(
            fold.state(of: .user(100), records: records, at: at, knownAt: nil)
                == fold.state(of: .user(100), entries: entries, at: at, knownAt: nil))
    }

    @Test("a catalog record with an unknown product kind is malformed")
    func unknownKindIsMalformed() throws {
        let record = LedgerRecord(
            environment: .sandbox, source: .catalog, idempotencyKey: "k", subject: Subject(),
            catalog: CatalogVersion(
                catalog: Catalog(products: [
                    Product(
                        id: "p", period: .monthly, devices: 1, price: Money(milliunits: 1000, currency: "EUR"),
                        priceSource: .declared, kind: .nonRenewing)
                ]), effectiveFrom: Fixture.p, reason: "r", operatorName: "o"))
        var bytes = record.encoded()
        // The kind byte follows the product id "p" (tag 2, 'p'): 1 for nonRenewing; make it 7.
        let position = try #require(bytes.indices.first { bytes[$0] == 2 && bytes[$0 + 1] == 0x70 }) + 2
        #expect(bytes[position] == 1)
        bytes[position] = 7
        #expect(throws: CoreError.self) { try LedgerRecord(decoding: bytes) }
    }
}
