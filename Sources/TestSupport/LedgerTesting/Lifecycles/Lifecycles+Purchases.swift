import LedgerCore

// Purchases, renewals and plan changes, as Apple sends them.
extension Lifecycle {
    public static let user = SubjectQuery.user(42)

    public static func script(_ otid: String = "1000000001", user: Int64? = 42) -> SubscriptionScript {
        SubscriptionScript(originalTransactionId: otid, userId: user)
    }

    public static let purchase: Lifecycle = {
        var s = script()
        let p = Fixture.p, e1 = Fixture.e1
        let records = [
            s.subscribe(Fixture.monthly(3), at: p),
            s.other("CONSUMPTION_REQUEST", at: p.plus(days: 3)),
            s.other("SOME_FUTURE_TYPE", "SOME_SUBTYPE", at: p.plus(days: 3)),
        ]
        return Lifecycle(
            name: "purchase", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: p.plus(ms: -1), status: .none, deviceLimit: 0, subscriptions: 0),
                Check(
                    at: p, status: .active, deviceLimit: 3, product: Fixture.monthly(3), productKnown: true,
                    pending: .absent, expiresAt: .equals(e1), since: .equals(p), autoRenew: .equals(true),
                    userId: .equals(42)),
                Check(at: p.plus(days: 4), status: .active, deviceLimit: 3, expiresAt: .equals(e1)),
                Check(at: e1.plus(ms: -1), status: .active, deviceLimit: 3),
                Check(at: e1, status: .expired, deviceLimit: 0, expiresAt: .equals(e1), since: .equals(p)),
            ])
    }()

    public static let renewals: Lifecycle = {
        var s = script()
        let p = Fixture.p, e1 = Fixture.e1, e2 = Fixture.e2, e3 = Fixture.e3
        // Real deliveries: a renewal can be signed before its purchaseDate (reference 1.7).
        let records = [s.subscribe(Fixture.monthly(3), at: p), s.renew(signedAt: e1.plus(ms: -34_000)), s.renew()]
        return Lifecycle(
            name: "renewals", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: e1.plus(ms: -1), status: .active, deviceLimit: 3, expiresAt: .equals(e1), since: .equals(p)),
                Check(at: e1, status: .active, deviceLimit: 3, expiresAt: .equals(e2), since: .equals(p)),
                Check(at: e3.plus(ms: -1), status: .active, deviceLimit: 3, expiresAt: .equals(e3), since: .equals(p)),
                Check(at: e3, status: .expired, deviceLimit: 0, expiresAt: .equals(e3), since: .equals(p)),
            ])
    }()

    public static let upgrade: Lifecycle = {
        var s = script()
        let p = Fixture.p, u = p.plus(days: 10)
        let upgradeEnd = RecordBuilders.instant("2026-02-20T12:00:00Z")
        let records = [s.subscribe(Fixture.monthly(1), at: p), s.upgrade(to: Fixture.monthly(5), at: u)]
        return Lifecycle(
            name: "upgrade mid-period", query: user, entries: Fixture.log(records),
            checks: [
                // As known now, the monthly_1 period ended at the upgrade.
                Check(
                    at: u.plus(ms: -1), status: .active, deviceLimit: 1, product: Fixture.monthly(1),
                    expiresAt: .equals(u)),
                Check(at: u.plus(ms: -1), knownAt: u, status: .active, deviceLimit: 1, expiresAt: .equals(Fixture.e1)),
                Check(
                    at: u, status: .active, deviceLimit: 5, product: Fixture.monthly(5), pending: .absent,
                    expiresAt: .equals(upgradeEnd), since: .equals(p)),
                Check(at: Fixture.e1, status: .active, deviceLimit: 5, product: Fixture.monthly(5)),
                Check(at: upgradeEnd, status: .expired, deviceLimit: 0, product: Fixture.monthly(5)),
            ])
    }()

    public static let downgrade: Lifecycle = {
        var s = script()
        let p = Fixture.p, d = p.plus(days: 5), e1 = Fixture.e1
        let records = [
            s.subscribe(Fixture.monthly(5), at: p), s.downgrade(to: Fixture.monthly(2), at: d), s.renew(),
        ]
        return Lifecycle(
            name: "downgrade pending until renewal", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: d.plus(ms: -1), status: .active, deviceLimit: 5, pending: .absent),
                Check(
                    at: d, status: .active, deviceLimit: 5, product: Fixture.monthly(5),
                    pending: .equals(Fixture.monthly(2))),
                Check(at: e1.plus(ms: -1), status: .active, deviceLimit: 5, pending: .equals(Fixture.monthly(2))),
                Check(
                    at: e1, status: .active, deviceLimit: 2, product: Fixture.monthly(2), pending: .absent,
                    expiresAt: .equals(Fixture.e2), since: .equals(p)),
            ])
    }()

    public static let downgradeCancelled: Lifecycle = {
        var s = script()
        let p = Fixture.p, d = p.plus(days: 5), c = p.plus(days: 8)
        let records = [
            s.subscribe(Fixture.monthly(5), at: p), s.downgrade(to: Fixture.monthly(2), at: d),
            s.cancelPendingChange(at: c), s.renew(),
        ]
        return Lifecycle(
            name: "downgrade cancelled", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: d, status: .active, deviceLimit: 5, pending: .equals(Fixture.monthly(2))),
                Check(at: c.plus(ms: -1), status: .active, deviceLimit: 5, pending: .equals(Fixture.monthly(2))),
                Check(at: c, status: .active, deviceLimit: 5, pending: .absent),
                Check(at: Fixture.e1, status: .active, deviceLimit: 5, product: Fixture.monthly(5), pending: .absent),
            ])
    }()

    public static let crossgrade: Lifecycle = {
        var s = script()
        let p = Fixture.p, d = p.plus(days: 5)
        // A crossgrade to another duration arrives as DOWNGRADE and takes effect at the next renewal.
        let records = [
            s.subscribe(Fixture.monthly(3), at: p), s.downgrade(to: Fixture.semiannual(3), at: d), s.renew(),
        ]
        return Lifecycle(
            name: "crossgrade to another duration", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: d, status: .active, deviceLimit: 3, pending: .equals(Fixture.semiannual(3))),
                Check(
                    at: Fixture.e1, status: .active, deviceLimit: 3, product: Fixture.semiannual(3),
                    pending: .absent, expiresAt: .equals(RecordBuilders.instant("2026-08-10T12:00:00Z")),
                    since: .equals(p)),
            ])
    }()

    public static let autoRenewOff: Lifecycle = {
        var s = script()
        let p = Fixture.p, a = p.plus(days: 3), e1 = Fixture.e1
        let records = [s.subscribe(Fixture.monthly(3), at: p), s.setAutoRenew(false, at: a), s.expire(at: e1)]
        return Lifecycle(
            name: "auto-renew off then expiry", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: a.plus(ms: -1), status: .active, deviceLimit: 3, autoRenew: .equals(true)),
                Check(at: a, status: .active, deviceLimit: 3, autoRenew: .equals(false)),
                Check(at: e1.plus(ms: -1), status: .active, deviceLimit: 3),
                Check(at: e1, status: .expired, deviceLimit: 0, expiresAt: .equals(e1), autoRenew: .equals(false)),
            ])
    }()

    public static let resubscribe: Lifecycle = {
        var s = script()
        let p = Fixture.p, e1 = Fixture.e1, r = e1.plus(days: 20)
        let records = [
            s.subscribe(Fixture.monthly(2), at: p), s.expire(at: e1), s.resubscribe(Fixture.annual(4), at: r),
        ]
        return Lifecycle(
            name: "resubscribe after expiry with another product", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: e1.plus(days: 1), status: .expired, deviceLimit: 0, product: Fixture.monthly(2)),
                Check(at: r.plus(ms: -1), status: .expired, deviceLimit: 0),
                Check(
                    at: r, status: .active, deviceLimit: 4, product: Fixture.annual(4), pending: .absent,
                    expiresAt: .equals(RecordBuilders.instant("2027-03-02T12:00:00Z")), since: .equals(r),
                    autoRenew: .equals(true)),
            ])
    }()

    public static let twoSubscriptions: Lifecycle = {
        var a = script("1000000001")
        var b = script("2000000001")
        let p = Fixture.p
        let records = [a.subscribe(Fixture.monthly(3), at: p), b.subscribe(Fixture.annual(2), at: p.plus(days: 2))]
        return Lifecycle(
            name: "two subscriptions for one user", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: p.plus(days: 1), status: .active, deviceLimit: 3, subscriptions: 1),
                Check(at: p.plus(days: 3), status: .active, deviceLimit: 5, subscriptions: 2),
                Check(
                    at: Fixture.e1, status: .active, deviceLimit: 2, subscription: "1000000001",
                    product: Fixture.monthly(3), subscriptions: 2),
                Check(
                    at: Fixture.e1, status: .active, deviceLimit: 2, subscription: "2000000001",
                    product: Fixture.annual(2)),
            ])
    }()

    public static let unknownProduct: Lifecycle = {
        var s = script()
        let p = Fixture.p
        let records = [s.subscribe("com.visla.gps.weekly_9", at: p, expiresAfterDays: 7)]
        return Lifecycle(
            name: "unknown product", query: user, entries: Fixture.log(records),
            checks: [
                Check(
                    at: p, status: .active, deviceLimit: 0, product: "com.visla.gps.weekly_9", productKnown: false,
                    expiresAt: .equals(p.plus(days: 7))),
                Check(at: p.plus(days: 7), status: .expired, deviceLimit: 0, productKnown: false),
            ])
    }()

    /// A consumable bought after the subscription lapsed (`ONE_TIME_CHARGE`, type `Consumable`, no expiry): used
    /// up when bought, it entitles to nothing, then or later.
    public static let consumableAfterLapse: Lifecycle = {
        var s = script()
        var coins = script("1000000077")
        let bought = Fixture.e1.plus(days: 5)
        var charge = coins.subscribe("com.visla.gps.coins_100", at: bought)
        charge.notification?.type = "ONE_TIME_CHARGE"
        charge.notification?.subtype = nil
        charge.transaction?.type = "Consumable"
        charge.transaction?.expiresDate = nil
        charge.renewal = nil
        let records = [
            s.subscribe(Fixture.monthly(3), at: Fixture.p), s.setAutoRenew(false, at: Fixture.p.plus(days: 3)),
            s.expire(at: Fixture.e1), charge,
        ]
        return Lifecycle(
            name: "a consumable after the subscription lapsed", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: Fixture.e1.plus(ms: -1), status: .active, deviceLimit: 3, subscriptions: 1),
                Check(at: bought, status: .expired, deviceLimit: 0, subscriptions: 1),
                Check(at: bought.plus(days: 365), status: .expired, deviceLimit: 0, subscriptions: 1),
            ])
    }()
}
