import LedgerCore

// Billing problems, refunds, revocations and extensions.
extension Lifecycle {
    public static let graceExpired: Lifecycle = {
        var s = script()
        let e1 = Fixture.e1, g = e1.plus(days: 16), x = e1.plus(days: 60)
        let records = [
            s.subscribe(Fixture.monthly(3), at: Fixture.p), s.failToRenew(graceUntil: g, at: e1),
            s.gracePeriodExpired(at: g), s.expire("BILLING_RETRY", at: x),
        ]
        return Lifecycle(
            name: "billing failure with grace, grace expired, retries exhausted", query: user,
            entries: Fixture.log(records),
            checks: [
                Check(at: e1.plus(ms: -1), status: .active, deviceLimit: 3, grace: .absent),
                Check(at: e1, status: .gracePeriod, deviceLimit: 3, expiresAt: .equals(e1), grace: .equals(g)),
                Check(at: g.plus(ms: -1), status: .gracePeriod, deviceLimit: 3, grace: .equals(g)),
                Check(at: g, status: .billingRetry, deviceLimit: 0, grace: .absent),
                Check(at: x.plus(ms: -1), status: .billingRetry, deviceLimit: 0),
                Check(at: x, status: .expired, deviceLimit: 0),
            ])
    }()

    /// Apple signs DID_FAIL_TO_RENEW moments after the period ends; the grace period still runs from the end.
    public static let graceAnnouncedLate: Lifecycle = {
        var s = script()
        let e1 = Fixture.e1, g = e1.plus(days: 16), signed = e1.plus(ms: 34_000)
        let records = [
            s.subscribe(Fixture.monthly(3), at: Fixture.p), s.setAutoRenew(true, at: Fixture.p.plus(days: 20)),
            s.failToRenew(graceUntil: g, at: signed),
        ]
        return Lifecycle(
            name: "grace announced after the lapse", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: e1.plus(ms: -1), status: .active, deviceLimit: 3),
                Check(at: e1, status: .gracePeriod, deviceLimit: 3, grace: .equals(g)),
                Check(at: signed.plus(ms: -1), status: .gracePeriod, deviceLimit: 3, grace: .equals(g)),
                Check(at: signed, status: .gracePeriod, deviceLimit: 3, grace: .equals(g)),
                Check(at: e1, knownAt: signed.plus(ms: -1), status: .expired, deviceLimit: 0),
                Check(at: g, status: .billingRetry, deviceLimit: 0),
            ])
    }()

    /// Auto-renew off, the lapse's EXPIRED and the resubscription's notification missed (the resubscription's
    /// transaction arrives alone, reconciled from the transaction history), then the next renewal fails into a
    /// grace period: that grace belongs to the later renewal, never to the earlier gap.
    public static let graceOfLaterRenewal: Lifecycle = {
        var s = script()
        let e1 = Fixture.e1, back = e1.plus(days: 10), e2 = back.plus(days: 28), g = e2.plus(days: 16)
        let records = [
            s.subscribe(Fixture.monthly(3), at: Fixture.p), s.setAutoRenew(false, at: Fixture.p.plus(days: 3)),
            s.resubscribe(Fixture.monthly(3), at: back).reconciled(), s.failToRenew(graceUntil: g, at: e2),
        ]
        return Lifecycle(
            name: "a later renewal's grace does not reach back into an earlier gap", query: user,
            entries: Fixture.log(records),
            checks: [
                Check(at: e1.plus(ms: -1), status: .active, deviceLimit: 3),
                Check(at: e1, status: .expired, deviceLimit: 0, grace: .absent),
                Check(at: back.plus(ms: -1), status: .expired, deviceLimit: 0, grace: .absent),
                Check(at: back, status: .active, deviceLimit: 3, since: .equals(back)),
                Check(at: e2, status: .gracePeriod, deviceLimit: 3, grace: .equals(g)),
            ])
    }()

    public static let graceRecovered: Lifecycle = {
        var s = script()
        let e1 = Fixture.e1, g = e1.plus(days: 16), r = e1.plus(days: 3)
        let records = [
            s.subscribe(Fixture.monthly(3), at: Fixture.p), s.failToRenew(graceUntil: g, at: e1), s.recover(at: r),
        ]
        return Lifecycle(
            name: "billing failure with grace, then recovery", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: e1, status: .gracePeriod, deviceLimit: 3, grace: .equals(g)),
                Check(at: r.plus(ms: -1), status: .gracePeriod, deviceLimit: 3),
                Check(
                    at: r, status: .active, deviceLimit: 3,
                    expiresAt: .equals(RecordBuilders.instant("2026-03-13T12:00:00Z")),
                    since: .equals(r), grace: .absent),
            ])
    }()

    public static let billingRetry: Lifecycle = {
        var s = script()
        let e1 = Fixture.e1, r = e1.plus(days: 10)
        let records = [
            s.subscribe(Fixture.monthly(3), at: Fixture.p), s.failToRenew(graceUntil: nil, at: e1), s.recover(at: r),
        ]
        return Lifecycle(
            name: "billing retry without grace, then recovery", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: e1.plus(ms: -1), status: .active, deviceLimit: 3),
                Check(at: e1, status: .billingRetry, deviceLimit: 0, expiresAt: .equals(e1), grace: .absent),
                Check(at: r.plus(ms: -1), status: .billingRetry, deviceLimit: 0),
                Check(at: r, status: .active, deviceLimit: 3, since: .equals(r)),
            ])
    }()

    public static let refundCurrent: Lifecycle = {
        var s = script()
        let f = Fixture.p.plus(days: 5)
        let records = [s.subscribe(Fixture.monthly(3), at: Fixture.p), s.refund(at: f)]
        return Lifecycle(
            name: "refund of the current transaction", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: f.plus(ms: -1), status: .active, deviceLimit: 3, expiresAt: .equals(f)),
                Check(at: f, status: .refunded, deviceLimit: 0, expiresAt: .equals(f)),
                Check(at: Fixture.e1.plus(days: 1), status: .refunded, deviceLimit: 0),
                // Before the refund was recorded, the ledger knew an active subscription.
                Check(at: f, knownAt: f, status: .active, deviceLimit: 3, expiresAt: .equals(Fixture.e1)),
            ])
    }()

    public static let refundPastRenewal: Lifecycle = {
        var s = script()
        let f = Fixture.e1.plus(days: 5)
        let records = [s.subscribe(Fixture.monthly(3), at: Fixture.p), s.renew(), s.refund("1000000001", at: f)]
        return Lifecycle(
            name: "refund of a past renewal leaves the current period", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: Fixture.p.plus(days: 1), status: .active, deviceLimit: 3, expiresAt: .equals(Fixture.e1)),
                Check(
                    at: f, status: .active, deviceLimit: 3, expiresAt: .equals(Fixture.e2), since: .equals(Fixture.p)),
                Check(at: Fixture.e2.plus(ms: -1), status: .active, deviceLimit: 3),
            ])
    }()

    public static let refundReversed: Lifecycle = {
        var s = script()
        let f = Fixture.p.plus(days: 5), v = Fixture.p.plus(days: 15)
        let records = [s.subscribe(Fixture.monthly(3), at: Fixture.p), s.refund(at: f), s.reverseRefund(at: v)]
        return Lifecycle(
            name: "refund reversed", query: user, entries: Fixture.log(records),
            checks: [
                // As known now, the reversal voids the refund from the start.
                Check(at: f, status: .active, deviceLimit: 3, expiresAt: .equals(Fixture.e1)),
                // As known between the refund and its reversal, the user was refunded.
                Check(at: f.plus(days: 1), knownAt: f.plus(days: 1), status: .refunded, deviceLimit: 0),
                Check(at: v, status: .active, deviceLimit: 3),
            ])
    }()

    public static let familyRevoke: Lifecycle = {
        var s = SubscriptionScript(originalTransactionId: "1000000001", userId: 42, ownershipType: "FAMILY_SHARED")
        let v = Fixture.p.plus(days: 7)
        let records = [s.subscribe(Fixture.monthly(3), at: Fixture.p), s.familyRevoke(at: v)]
        return Lifecycle(
            name: "family-sharing revoke", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: v.plus(ms: -1), status: .active, deviceLimit: 3),
                Check(at: v, status: .revoked, deviceLimit: 0, expiresAt: .equals(v)),
                Check(at: Fixture.e1.plus(days: 3), status: .revoked, deviceLimit: 0),
            ])
    }()

    /// A later version of a Family Sharing revocation that names no revocationType (a legacy receipt's
    /// cancellation) is still a revocation of a shared purchase, not a refund.
    public static let familyRevokeWithoutType: Lifecycle = {
        var s = SubscriptionScript(originalTransactionId: "1000000001", userId: 42, ownershipType: "FAMILY_SHARED")
        let v = Fixture.p.plus(days: 5), later = v.plus(days: 4)
        let revoked = [s.subscribe(Fixture.monthly(3), at: Fixture.p), s.familyRevoke(at: v)]
        _ = s.resign(at: later) { $0.revocationType = nil }
        let records = revoked + [s.other("CONSUMPTION_REQUEST", at: later).reconciled(from: .legacyReceipt)]
        return Lifecycle(
            name: "family-sharing revoke, then a version without revocationType", query: user,
            entries: Fixture.log(records),
            checks: [
                Check(at: v, status: .revoked, deviceLimit: 0, expiresAt: .equals(v)),
                Check(at: later, status: .revoked, deviceLimit: 0, expiresAt: .equals(v)),
                Check(at: Fixture.e1.plus(days: 3), status: .revoked, deviceLimit: 0),
            ])
    }()

    public static let renewalExtended: Lifecycle = {
        var s = script()
        let extended = Fixture.e1.plus(days: 10)
        let records = [
            s.subscribe(Fixture.monthly(3), at: Fixture.p), s.extendRenewal(byDays: 10, at: Fixture.p.plus(days: 20)),
        ]
        return Lifecycle(
            name: "renewal extended", query: user, entries: Fixture.log(records),
            checks: [
                Check(at: Fixture.p.plus(days: 1), status: .active, deviceLimit: 3, expiresAt: .equals(extended)),
                Check(at: Fixture.e1, status: .active, deviceLimit: 3),
                Check(at: extended.plus(ms: -1), status: .active, deviceLimit: 3),
                Check(at: extended, status: .expired, deviceLimit: 0, expiresAt: .equals(extended)),
                Check(at: Fixture.e1, knownAt: Fixture.p.plus(days: 19), status: .expired, deviceLimit: 0),
            ])
    }()
}
