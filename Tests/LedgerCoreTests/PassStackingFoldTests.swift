import LedgerCore
import LedgerTesting
import Testing

/// Non-renewing passes (seed 2: the period comes from the product; purchases must not overlap).
@Suite("Non-renewing passes in the fold")
struct PassStackingFoldTests {
    static let pass = "com.visla.gps.pass_30d_2"

    /// The built-in catalog plus a 30-day, 2-device pass, in force throughout.
    static let fold: EntitlementFold = {
        let product = Product(
            id: pass, period: Period(named: "P30D")!, devices: 2, price: Money(milliunits: 9_900, currency: "EUR"),
            priceSource: .declared, kind: .nonRenewing)
        return EntitlementFold(catalog: Catalog(products: Catalog.visla.products + [product]))
    }()

    static func day(_ text: String) -> Instant { RecordBuilders.instant(text + "T00:00:00Z") }

    /// A pass bought by user 200, as Get Transaction History gives it: no expiry, its own transaction.
    static func bought(_ id: String, at purchase: Instant, product: String = pass, refundedAt: Instant? = nil)
        -> LedgerRecord
    {
        RecordBuilders.imported(
            TransactionFacts(
                transactionId: id, originalTransactionId: id, productId: product, purchaseDate: purchase,
                expiresDate: nil, type: "Non-Renewing Subscription",
                appAccountToken: AccountToken.token(forUser: 200), inAppOwnershipType: "PURCHASED",
                revocationDate: refundedAt, revocationReason: refundedAt == nil ? nil : 0,
                signedDate: refundedAt ?? purchase))
    }

    /// Passes bought 1 March, 11 March and 20 March: 30 days each, one after the other.
    static let threePasses = Fixture.log([
        bought("3000000001", at: day("2026-03-01")), bought("3000000002", at: day("2026-03-11")),
        bought("3000000003", at: day("2026-03-20")),
    ])

    func state(_ entries: [LedgerEntry], _ at: String) -> EntitlementState {
        Self.fold.state(of: .user(200), entries: entries, at: Self.day(at), knownAt: nil)
    }

    @Test("two overlapping passes: the second starts when the first ends, the limit stays 2")
    func twoPasses() {
        let entries = Array(Self.threePasses.prefix(2))
        // 15 March: the first pass (1 → 31 March) alone; the second waits.
        let march15 = state(entries, "2026-03-15")
        #expect(march15.deviceLimit == 2)
        #expect(march15.subscriptions.map(\.originalTransactionId) == ["3000000001"])
        #expect(march15.subscriptions.first?.expiresAt == Self.day("2026-03-31"))
        // 5 April: the second pass, 31 March → 30 April.
        let april5 = state(entries, "2026-04-05")
        #expect(april5.deviceLimit == 2)
        let second = april5.subscriptions.first { $0.originalTransactionId == "3000000002" }
        #expect(second?.status == .active)
        #expect(second?.since == Self.day("2026-03-31"))
        #expect(second?.expiresAt == Self.day("2026-04-30"))
        #expect(april5.subscriptions.first { $0.originalTransactionId == "3000000001" }?.status == .expired)
        // 30 April: both over.
        #expect(state(entries, "2026-04-30").deviceLimit == 0)
    }

    @Test("three overlapping passes run back to back: 1 March → 31 March → 30 April → 30 May")
    func threePasses() {
        let entries = Self.threePasses
        let may1 = state(entries, "2026-05-01")
        let third = may1.subscriptions.first { $0.originalTransactionId == "3000000003" }
        #expect(third?.since == Self.day("2026-04-30"))
        #expect(third?.expiresAt == Self.day("2026-05-30"))
        #expect(third?.devices == 2)
        #expect(may1.deviceLimit == 2)
        for day in ["2026-03-02", "2026-03-21", "2026-04-15", "2026-05-29"] {
            #expect(state(entries, day).deviceLimit == 2, "\(day)")
        }
        #expect(state(entries, "2026-05-30").deviceLimit == 0)
        // The projection of all users agrees.
        let all = Self.fold.subscriptions(in: entries, at: Self.day("2026-05-01"), knownAt: nil)
        #expect(all.filter { $0.state.status == .active }.map(\.state.originalTransactionId) == ["3000000003"])
    }

    @Test("passes stack the same whatever the order of the records")
    func orderIndependence() {
        let expected = state(Self.threePasses, "2026-04-15")
        var random = SeededRandom(seed: 42)
        for _ in 0..<20 {
            var shuffled = Self.threePasses
            shuffled.shuffle(using: &random)
            #expect(state(shuffled, "2026-04-15") == expected)
        }
    }

    @Test("a refunded pass ends at its refund, and the next starts then")
    func refundedPass() {
        let entries = Fixture.log([
            Self.bought("3000000011", at: Self.day("2026-03-01"), refundedAt: Self.day("2026-03-05")),
            Self.bought("3000000012", at: Self.day("2026-03-03")),
        ])
        let march10 = state(entries, "2026-03-10")
        let second = march10.subscriptions.first { $0.originalTransactionId == "3000000012" }
        #expect(second?.since == Self.day("2026-03-05"))
        #expect(second?.expiresAt == Self.day("2026-04-04"))
        #expect(march10.deviceLimit == 2)
    }

    @Test("an unknown product without an expiry is not active: 0 devices, not entitled")
    func unknownProductWithoutExpiry() {
        let entries = Fixture.log([Self.bought("3000000021", at: Self.day("2026-03-01"), product: "com.visla.gps.life")]
        )
        let state = state(entries, "2026-03-10")
        #expect(!state.entitled)
        #expect(state.deviceLimit == 0)
        let subscription = state.subscriptions.first
        #expect(subscription?.productKnown == false)
        #expect(subscription?.devices == 0)
        #expect(subscription?.status != .active)
        #expect(subscription?.expiresAt == nil)
    }

    @Test("a pass asked about by its own id stacks as in its owner's state, on entries and on decoded records")
    func askedBySubscription() throws {
        let entries = Array(Self.threePasses.prefix(2))
        var records = FoldRecords(strict: true)
        for entry in entries {
            try entry.record.encoded().withUnsafeBytes {
                try records.append(seq: entry.seq, recordedAt: entry.recordedAt, payload: $0)
            }
        }
        let query = SubjectQuery.originalTransaction("3000000002")
        for (day, status, limit) in [
            ("2026-03-15", nil, 0), ("2026-04-05", EntitlementStatus.active, 2), ("2026-04-30", .expired, 0),
        ] {
            let asked = Self.fold.state(of: query, entries: entries, at: Self.day(day), knownAt: nil)
            #expect(asked.userId == 200)
            #expect(asked.subscriptions.map(\.originalTransactionId) == (status == nil ? [] : ["3000000002"]))
            #expect(asked.subscriptions.first?.status == status, "\(day)")
            #expect(asked.deviceLimit == limit, "\(day)")
            let owner = state(entries, day).subscriptions.first { $0.originalTransactionId == "3000000002" }
            #expect(asked.subscriptions.first == owner, "\(day)")
            #expect(Self.fold.state(of: query, records: records, at: Self.day(day), knownAt: nil) == asked)
        }
        let april5 = Self.fold.state(of: query, entries: entries, at: Self.day("2026-04-05"), knownAt: nil)
        #expect(april5.subscriptions.first?.since == Self.day("2026-03-31"))
        #expect(april5.subscriptions.first?.expiresAt == Self.day("2026-04-30"))
    }

    @Test("a pass stacked past the version that stops selling it keeps its period and devices")
    func stackedPastTheLastSale() {
        var products = Self.fold.catalog.products
        products.removeAll { $0.id == Self.pass }
        let history = CatalogHistory([
            CatalogHistory.Entry(
                seq: 1, recordedAt: .distantPast,
                version: CatalogVersion(
                    catalog: Self.fold.catalog, effectiveFrom: .distantPast, reason: "passes", operatorName: "ops")),
            CatalogHistory.Entry(
                seq: 9, recordedAt: Self.day("2026-03-20"),
                version: CatalogVersion(
                    catalog: Catalog(products: products), effectiveFrom: Self.day("2026-03-20"),
                    reason: "no more passes",
                    operatorName: "ops")),
        ])
        let fold = EntitlementFold(catalogs: history)
        // The second pass, bought 11 March while on sale, runs 31 March → 30 April with the pass's 2 devices.
        let april4 = fold.state(
            of: .user(200), entries: Array(Self.threePasses.prefix(2)), at: Self.day("2026-04-04"), knownAt: nil)
        let second = april4.subscriptions.first { $0.originalTransactionId == "3000000002" }
        #expect(second?.status == .active)
        #expect(second?.since == Self.day("2026-03-31"))
        #expect(second?.expiresAt == Self.day("2026-04-30"))
        #expect(second?.productKnown == true)
        #expect(second?.devices == 2)
        #expect(april4.deviceLimit == 2)
    }
}
