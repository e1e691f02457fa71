import LedgerCore
import LedgerTesting
import Testing

@Suite("History")
struct HistoryTests {
    @Test("each notification gets its kind and effective time")
    func kindsAndEffectiveTimes() {
        var s = SubscriptionScript(originalTransactionId: "5000000001", userId: 5)
        let p = Fixture.p, e1 = Fixture.e1
        let subscribe = s.subscribe(Fixture.monthly(1), at: p)
        let downgrade = s.downgrade(to: Fixture.monthly(1), at: p.plus(days: 1))
        let upgrade = s.upgrade(to: Fixture.monthly(4), at: p.plus(days: 2))
        let upgradeEnd = s.current!.expiresDate!
        let renewal = s.renew(signedAt: upgradeEnd.plus(ms: -30_000))
        let refund = s.refund(at: e1.plus(days: 40))
        let unknown = s.other("BRAND_NEW_TYPE", at: e1.plus(days: 41))
        let cases: [(LedgerRecord, String, Instant)] = [
            (subscribe, "purchase", p),
            (downgrade, "downgrade", p.plus(days: 1)),
            (upgrade, "upgrade", p.plus(days: 2)),
            (renewal, "renewal", upgradeEnd),  // its purchaseDate, though signed 30 s earlier
            (refund, "refund", e1.plus(days: 40)),
            (unknown, "unknown", e1.plus(days: 41)),
            (s.other("CONSUMPTION_REQUEST", at: e1.plus(days: 42)), "informational", e1.plus(days: 42)),
            (s.setAutoRenew(false, at: e1.plus(days: 43)), "autoRenewStatus", e1.plus(days: 43)),
            (s.expire(at: e1.plus(days: 44)), "expiry", e1.plus(days: 44)),
            (s.resubscribe(Fixture.monthly(2), at: e1.plus(days: 50)), "resubscribe", e1.plus(days: 50)),
            (s.failToRenew(graceUntil: nil, at: e1.plus(days: 80)), "billingFailure", e1.plus(days: 80)),
            (s.recover(at: e1.plus(days: 81)), "billingRecovery", e1.plus(days: 81)),
        ]
        for (position, (record, kind, effective)) in cases.enumerated() {
            let entry = LedgerEntry(seq: UInt64(position + 1), recordedAt: Fixture.e3.plus(days: 100), record: record)
            #expect(entry.kind == kind, "\(record.notification?.type ?? "")")
            #expect(entry.effectiveAt == effective, "\(kind)")
        }
        let link = LedgerEntry(
            seq: 99, recordedAt: Fixture.e2,
            record: RecordBuilders.link(originalTransactionId: "5000000001", userId: 5, key: "l"))
        #expect(link.kind == "link" && link.effectiveAt == Fixture.e2)
        let revoke = LedgerEntry(
            seq: 100, recordedAt: Fixture.e3,
            record: RecordBuilders.revoke(Subject(userId: 5), from: Fixture.e1, key: "r"))
        #expect(revoke.kind == "correction" && revoke.effectiveAt == Fixture.e1)
        let imported = LedgerEntry(seq: 101, recordedAt: Fixture.e3, record: RecordBuilders.imported(s.current!))
        #expect(imported.kind == "transaction" && imported.effectiveAt == s.current!.purchaseDate)
    }

    @Test("a user's history holds their linked orphan and corrections, in effective-time order, once each")
    func historyOfUser() {
        var own = SubscriptionScript(originalTransactionId: "6000000001", userId: 6)
        var orphan = SubscriptionScript(originalTransactionId: "6000000002")
        var other = SubscriptionScript(originalTransactionId: "6000000003", userId: 7)
        var log = EntryLog()
        log.append(own.subscribe(Fixture.monthly(1), at: Fixture.p.plus(days: 3)))
        log.append(orphan.subscribe(Fixture.monthly(2), at: Fixture.p))
        log.append(other.subscribe(Fixture.monthly(3), at: Fixture.p))
        log.append(
            RecordBuilders.link(originalTransactionId: "6000000002", userId: 6, key: "link"), recordedAt: Fixture.e1)
        log.append(
            RecordBuilders.revoke(Subject(userId: 6), from: Fixture.p.plus(days: 1), key: "fix"), recordedAt: Fixture.e2
        )
        var delivered = log.entries + [log.entries[0]]  // a duplicate delivery
        delivered.reverse()
        let fold = EntitlementFold()
        let history = fold.history(of: .user(6), entries: delivered, knownAt: nil)
        #expect(history.map(\.seq) == [2, 5, 1, 4])
        #expect(history.map(\.kind) == ["purchase", "correction", "purchase", "link"])
        let earlier = fold.history(of: .user(6), entries: delivered, knownAt: Fixture.p.plus(days: 5))
        #expect(earlier.map(\.seq) == [1])
        let bySubscription = fold.history(of: .originalTransaction("6000000002"), entries: delivered, knownAt: nil)
        #expect(bySubscription.map(\.seq) == [2, 4])
    }
}
