import LedgerCore
import LedgerService
import LedgerTesting
import Testing

@Suite struct ProjectionTableTests {
    let directory = TemporaryDirectory()
    let day: Int64 = 86_400_000
    let start = RecordBuilders.instant("2026-01-10T12:00:00Z")

    /// Five users: active monthly, lapsed, in a grace period, refunded, and one with two subscriptions.
    func ledger() throws -> Ledger {
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        var records: [LedgerRecord] = []
        var active = SubscriptionScript(originalTransactionId: "1000", userId: 1)
        records.append(active.subscribe(Fixture.monthly(3), at: start))
        records.append(active.renew())
        var lapsed = SubscriptionScript(originalTransactionId: "2000", userId: 2)
        records.append(lapsed.subscribe(Fixture.monthly(2), at: start))
        records.append(lapsed.setAutoRenew(false, at: start.plus(days: 3)))
        records.append(lapsed.expire(at: start.plus(days: 31)))
        var grace = SubscriptionScript(originalTransactionId: "3000", userId: 3)
        records.append(grace.subscribe(Fixture.annual(5), at: start))
        records.append(grace.failToRenew(graceUntil: start.plus(days: 381), at: start.plus(days: 365)))
        var refunded = SubscriptionScript(originalTransactionId: "4000", userId: 4)
        records.append(refunded.subscribe(Fixture.monthly(1), at: start))
        records.append(refunded.refund(at: start.plus(days: 5)))
        var first = SubscriptionScript(originalTransactionId: "5000", userId: 5)
        var second = SubscriptionScript(originalTransactionId: "5500", userId: 5)
        records.append(first.subscribe(Fixture.monthly(2), at: start))
        records.append(second.subscribe(Fixture.semiannual(4), at: start.plus(days: 10)))
        _ = try ledger.append(records.map { ($0, nil) })
        return ledger
    }

    @Test(arguments: [0, 15, 40, 200, 370, 375])
    func answersAsTheFoldDoesForEveryUser(daysAfterStart: Int) throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let at = start.plus(days: daysAfterStart)
        let table = try ledger.projectionTable(at: at)
        #expect(table.count == 5)
        for user in Int64(1)...5 {
            let state = try ledger.state(of: .user(user), at: at, knownAt: nil)
            let entry = try #require(table.lookup(user: user, at: at))
            #expect(entry.deviceLimit == state.deviceLimit, "user \(user) at \(at)")
            #expect(entry.status == state.status, "user \(user) at \(at)")
        }
    }

    /// Voids of user 1's renewal, of user 5's second subscription and of user 4's refund: the table, the summary
    /// and every user's state agree on the records that are left (the refund voided: user 4 entitled again).
    @Test(arguments: [0, 15, 40, 200])
    func honoursVoids(daysAfterStart: Int) throws {
        let ledger = try ledger()
        defer { ledger.close() }
        // Records 2 (user 1's renewal), 11 (user 5's semiannual) and 9 (user 4's refund).
        for seq: UInt64 in [2, 11, 9] {
            guard case .appended = try ledger.void(seq: seq, reason: "by mistake", operatorName: "ops") else {
                Issue.record("void of \(seq) not appended")
                continue
            }
        }
        let at = start.plus(days: daysAfterStart)
        let table = try ledger.projectionTable(at: at)
        var devices = 0
        for user in Int64(1)...5 {
            let state = try ledger.state(of: .user(user), at: at, knownAt: nil)
            let entry = try #require(table.lookup(user: user, at: at))
            #expect(entry.deviceLimit == state.deviceLimit, "user \(user) at \(at)")
            #expect(entry.status == state.status, "user \(user) at \(at)")
            devices += state.deviceLimit
        }
        #expect(try ledger.state(of: .user(5), at: start.plus(days: 15), knownAt: nil).deviceLimit == 2)
        #expect(try ledger.state(of: .user(4), at: start.plus(days: 15), knownAt: nil).deviceLimit == 1)
        #expect(try ledger.state(of: .user(1), at: start.plus(days: 40), knownAt: nil).deviceLimit == 0)
        #expect(try ledger.rebuildProjections(at: at).devicesUnderContract == devices)
    }

    @Test func holdsUntilItsValidityAndNoLonger() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let at = start.plus(days: 15)
        let table = try ledger.projectionTable(at: at)
        for user in Int64(1)...5 {
            let entry = try #require(table.entry(user: user))
            guard let until = entry.validUntil else { continue }
            let lastValid = until.adding(milliseconds: -1)
            let state = try ledger.state(of: .user(user), at: lastValid, knownAt: nil)
            #expect(table.lookup(user: user, at: lastValid)?.deviceLimit == state.deviceLimit)
            #expect(table.lookup(user: user, at: until) == nil, "user \(user) must be folded again at \(until)")
        }
        // The active monthly subscriber's answer lasts until the renewed period ends, not forever.
        let renewedEnd = try #require(
            ledger.state(of: .user(1), at: at, knownAt: nil).subscriptions.first?.expiresAt)
        #expect(try #require(table.entry(user: 1)?.validUntil) <= renewedEnd)
    }

    @Test func anUnknownUserHasNoDevicesAndAnEarlierInstantIsRefused() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let at = start.plus(days: 15)
        let table = try ledger.projectionTable(at: at)
        #expect(table.lookup(user: 99, at: at) == .init(userId: 99, deviceLimit: 0, status: .none, validUntil: nil))
        #expect(table.lookup(user: 1, at: start) == nil)
        #expect(table.coveredSeq == ledger.head.seq)
    }

    @Test func keepsAboutTwentyBytesPerUser() {
        let entries = (1...10_000).map { user in
            ProjectionTable.Entry(
                userId: Int64(user * 7), deviceLimit: user % 11, status: user % 3 == 0 ? .expired : .active,
                validUntil: Instant(milliseconds: Int64(user) * 1_000))
        }
        let table = ProjectionTable(at: Instant(milliseconds: 0), coveredSeq: 1, entries: entries.reversed())
        #expect(table.count == 10_000)
        #expect(table.memoryBytes / table.count <= 24)
        #expect(table.lookup(user: 7 * 33, at: Instant(milliseconds: 10))?.status == .expired)
        #expect(table.lookup(user: 7 * 34, at: Instant(milliseconds: 10))?.deviceLimit == 1)
        #expect(table.lookup(user: 7 * 34, at: Instant(milliseconds: 34_000)) == nil)
    }
}
