import LedgerCore
import LedgerTesting
import Testing

@Suite("Entitlement fold")
struct EntitlementFoldTests {
    let fold = EntitlementFold(catalog: .visla)

    @Test("each lifecycle answers as Apple's rules say", arguments: Lifecycle.all)
    func lifecycle(_ lifecycle: Lifecycle) {
        lifecycle.verify(fold)
    }

    @Test("any delivery order, with duplicates, gives the same answers", arguments: Lifecycle.all)
    func orderIndependence(_ lifecycle: Lifecycle) {
        let expected = lifecycle.checks.map {
            fold.state(of: $0.query ?? lifecycle.query, entries: lifecycle.entries, at: $0.at, knownAt: $0.knownAt)
        }
        let expectedAll = lifecycle.checks.map {
            fold.subscriptions(in: lifecycle.entries, at: $0.at, knownAt: $0.knownAt)
        }
        var random = SeededRandom(seed: UInt64(lifecycle.name.utf8.count) &* 7919)
        for round in 0..<200 {
            // Apple retries deliveries: records appended again later, under higher sequence numbers.
            let delivered = lifecycle.redelivered(using: &random)
            for (position, check) in lifecycle.checks.enumerated() {
                let state = fold.state(
                    of: check.query ?? lifecycle.query, entries: delivered, at: check.at, knownAt: check.knownAt)
                #expect(state == expected[position], "\(lifecycle.name) round \(round) at \(check.at)")
                let all = fold.subscriptions(in: delivered, at: check.at, knownAt: check.knownAt)
                #expect(all == expectedAll[position], "\(lifecycle.name) round \(round) at \(check.at)")
            }
        }
    }

    @Test("a record recorded after the knowledge limit never counts", arguments: Lifecycle.all)
    func knownAtHidesLaterRecords(_ lifecycle: Lifecycle) {
        for limit in lifecycle.entries.map(\.recordedAt) {
            let earlier = lifecycle.entries.filter { $0.recordedAt <= limit }
            for check in lifecycle.checks {
                let query = check.query ?? lifecycle.query
                let limited = fold.state(of: query, entries: lifecycle.entries, at: check.at, knownAt: limit)
                let onlyEarlier = fold.state(of: query, entries: earlier, at: check.at, knownAt: nil)
                #expect(limited.subscriptions == onlyEarlier.subscriptions, "\(lifecycle.name) known at \(limit)")
                #expect(limited.userId == onlyEarlier.userId)
            }
        }
    }

    @Test("the projection of all subscriptions agrees with each user's state", arguments: Lifecycle.all)
    func projectionAgreesWithQueries(_ lifecycle: Lifecycle) {
        for check in lifecycle.checks {
            let query = check.query ?? lifecycle.query
            let state = fold.state(of: query, entries: lifecycle.entries, at: check.at, knownAt: check.knownAt)
            let all = fold.subscriptions(in: lifecycle.entries, at: check.at, knownAt: check.knownAt)
            let mine = all.filter { owned in
                switch query {
                case .user(let id): return owned.owner.userId == id
                case .account(let uuid): return owned.owner.appAccountToken == AccountToken.canonical(uuid)
                case .originalTransaction: return state.subscriptions.contains(owned.state)
                }
            }
            #expect(mine.map(\.state) == state.subscriptions, "\(lifecycle.name) at \(check.at)")
        }
    }

    @Test("refunded on day D, recorded on D+2: entitled as known on D+1, refunded as known now")
    func refundRecordedLate() {
        var script = SubscriptionScript(originalTransactionId: "1000000009", userId: 9)
        let d = Fixture.p.plus(days: 6)
        var log = EntryLog()
        log.append(script.subscribe(Fixture.monthly(2), at: Fixture.p))
        log.append(script.refund(at: d), recordedAt: d.plus(days: 2))
        let asKnownThen = fold.state(of: .user(9), entries: log.entries, at: d.plus(days: 1), knownAt: d.plus(days: 1))
        #expect(asKnownThen.entitled)
        #expect(asKnownThen.deviceLimit == 2)
        let asKnownNow = fold.state(of: .user(9), entries: log.entries, at: d.plus(days: 1), knownAt: nil)
        #expect(asKnownNow.status == .refunded)
        #expect(!asKnownNow.entitled)
        #expect(asKnownNow.subscriptions.first?.lastSeq == 2)
        #expect(asKnownThen.subscriptions.first?.lastSeq == 1)
    }

    @Test("an unknown subject is not an error")
    func unknownSubject() {
        let state = fold.state(
            of: .account("not-a-uuid"), entries: Lifecycle.purchase.entries, at: Fixture.p, knownAt: nil)
        #expect(state.status == .none)
        #expect(state.subscriptions.isEmpty)
        #expect(state.appAccountToken == "not-a-uuid")
        let empty = fold.state(of: .user(1), entries: [LedgerEntry](), at: Fixture.p, knownAt: nil)
        #expect(empty.status == .none && empty.deviceLimit == 0)
    }
}
