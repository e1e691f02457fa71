import LedgerCore

// Orphans, links and operator corrections.
extension Lifecycle {
    public static let orphanThenLink: Lifecycle = {
        var s = script("3000000001", user: nil)
        let p = Fixture.p, l = p.plus(days: 2)
        var log = EntryLog()
        log.append(s.subscribe(Fixture.monthly(4), at: p))
        log.append(RecordBuilders.link(originalTransactionId: "3000000001", userId: 7, key: "link-1"), recordedAt: l)
        let otid = SubjectQuery.originalTransaction("3000000001")
        return Lifecycle(
            name: "orphan then link", query: .user(7), entries: log.entries,
            checks: [
                Check(at: p.plus(days: 1), knownAt: p.plus(days: 1), status: .none, deviceLimit: 0, subscriptions: 0),
                Check(
                    at: p.plus(days: 1), knownAt: p.plus(days: 1), query: otid, status: .active, deviceLimit: 4,
                    userId: .absent),
                Check(at: p.plus(days: 1), knownAt: l, status: .active, deviceLimit: 4, userId: .equals(7)),
                Check(at: p.plus(days: 1), status: .active, deviceLimit: 4, product: Fixture.monthly(4)),
                Check(at: p.plus(days: 3), query: otid, status: .active, deviceLimit: 4, userId: .equals(7)),
                Check(
                    at: p.plus(days: 3), query: .account("00000007-0000-0000-0000-000000000000"), status: .active,
                    deviceLimit: 4),
                Check(at: p.plus(days: 3), query: .user(8), status: .none, deviceLimit: 0),
            ])
    }()

    public static let correctionGrant: Lifecycle = {
        let g1 = RecordBuilders.instant("2026-03-01T00:00:00Z"), g2 = RecordBuilders.instant("2026-04-01T00:00:00Z")
        var log = EntryLog()
        log.append(
            RecordBuilders.grant(
                Subject(userId: 42), productId: Fixture.annual(10), from: g1, until: g2, key: "grant-1"),
            recordedAt: g1.plus(days: -1))
        return Lifecycle(
            name: "correction: grant", query: user, entries: log.entries,
            checks: [
                Check(at: g1.plus(ms: -1), status: .none, deviceLimit: 0),
                Check(
                    at: g1, status: .active, deviceLimit: 10, subscription: "correction:grant-1",
                    product: Fixture.annual(10), expiresAt: .equals(g2), since: .equals(g1), autoRenew: .absent),
                Check(at: g2.plus(ms: -1), status: .active, deviceLimit: 10),
                Check(at: g2, status: .expired, deviceLimit: 0),
                Check(at: g1, knownAt: g1.plus(days: -2), status: .none, deviceLimit: 0),
            ])
    }()

    public static let correctionRevoke: Lifecycle = {
        var s = script()
        let x = Fixture.p.plus(days: 10)
        var log = EntryLog()
        log.append(s.subscribe(Fixture.monthly(3), at: Fixture.p))
        log.append(RecordBuilders.revoke(Subject(userId: 42), from: x, key: "revoke-1"), recordedAt: x.plus(days: 1))
        log.append(s.renew())  // Apple kept billing: a transaction starting after the revoke is not affected.
        return Lifecycle(
            name: "correction: revoke", query: user, entries: log.entries,
            checks: [
                Check(at: x.plus(ms: -1), status: .active, deviceLimit: 3),
                Check(at: x, status: .revoked, deviceLimit: 0, expiresAt: .equals(x)),
                Check(at: x, knownAt: x, status: .active, deviceLimit: 3),
                Check(at: Fixture.e1, status: .active, deviceLimit: 3, since: .equals(Fixture.e1)),
            ])
    }()

    public static let correctionGrantRevoked: Lifecycle = {
        let g1 = RecordBuilders.instant("2026-03-01T00:00:00Z"), g2 = RecordBuilders.instant("2026-04-01T00:00:00Z")
        let x = g1.plus(days: 5)
        var log = EntryLog()
        log.append(
            RecordBuilders.grant(
                Subject(userId: 42), productId: Fixture.monthly(5), from: g1, until: g2, key: "grant-2"),
            recordedAt: g1)
        log.append(RecordBuilders.revoke(Subject(userId: 42), from: x, key: "revoke-2"), recordedAt: x)
        return Lifecycle(
            name: "correction: grant then revoke", query: user, entries: log.entries,
            checks: [
                Check(at: x.plus(ms: -1), status: .active, deviceLimit: 5),
                Check(at: x, status: .revoked, deviceLimit: 0, expiresAt: .equals(x)),
            ])
    }()

    public static let correctionOnSubscription: Lifecycle = {
        var s = script("3000000002", user: nil)
        let p = Fixture.p, x = p.plus(days: 4)
        var log = EntryLog()
        log.append(s.subscribe(Fixture.monthly(2), at: p))
        log.append(
            RecordBuilders.grant(
                Subject(originalTransactionId: "3000000002"), productId: Fixture.monthly(1), from: p,
                until: p.plus(days: 30), key: "grant-3"), recordedAt: p)
        log.append(
            RecordBuilders.revoke(Subject(originalTransactionId: "3000000002"), from: x, key: "revoke-3"), recordedAt: x
        )
        return Lifecycle(
            name: "correction addressed to a subscription", query: .originalTransaction("3000000002"),
            entries: log.entries,
            checks: [
                Check(at: p, status: .active, deviceLimit: 3, subscriptions: 2),
                Check(at: x, status: .revoked, deviceLimit: 0, subscriptions: 2),
            ])
    }()

    /// Every lifecycle, for the table-driven and property tests.
    public static let all: [Lifecycle] = [
        purchase, renewals, upgrade, downgrade, downgradeCancelled, crossgrade, autoRenewOff, resubscribe,
        twoSubscriptions, unknownProduct, consumableAfterLapse, graceExpired, graceAnnouncedLate, graceOfLaterRenewal,
        graceRecovered, billingRetry, refundCurrent,
        refundPastRenewal, refundReversed, familyRevoke, familyRevokeWithoutType, renewalExtended, orphanThenLink,
        correctionGrant,
        correctionRevoke, correctionGrantRevoked, correctionOnSubscription,
    ]
}
