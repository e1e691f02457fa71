extension SubscriptionTimeline {
    /// The subscription's state at `at`; nil when it has not started by then.
    func state(at: Instant) -> SubscriptionState? {
        guard let index = grants.lastIndex(where: { $0.start <= at }) else { return nil }
        let grant = grants[index]
        let status: EntitlementStatus
        var graceEnd: Instant?
        if at < grant.end {
            status = .active
        } else {
            switch grant.reason {
            case .refund: status = .refunded
            case .familyRevoke, .operatorRevoke: status = .revoked
            case .expiry, .superseded:
                (status, graceEnd) = lapse(after: grant, at: at)
            }
        }
        let renewal = latestRenewal(at: at)
        var pending: String?
        if status == .active || status == .gracePeriod || status == .billingRetry,
            let next = renewal?.autoRenewProductId, next != grant.productId
        {
            pending = next
        }
        let product = catalog.product(id: grant.productId)
        return SubscriptionState(
            originalTransactionId: originalTransactionId, productId: grant.productId, productKnown: product != nil,
            devices: product?.devices ?? 0, period: product?.period.name, status: status, since: runStart(endingAt: index),
            expiresAt: grant.end, gracePeriodExpiresAt: graceEnd, autoRenew: renewal?.autoRenewStatus,
            pendingProductId: pending, lastSeq: lastSeq)
    }

    /// The status after `grant` lapsed at its end, at `at` (≥ its end), from the renewal states Apple
    /// signed for this period and its lapse.
    ///
    /// Grace holds from the lapse until `gracePeriodExpiresDate` when any renewal state of this lapse says
    /// so (Apple grants it from the lapse, even if it signs it seconds later), unless an EXPIRED or
    /// GRACE_PERIOD_EXPIRED was signed after it by `at`. Otherwise billing retry when the renewal state at
    /// `at` says Apple is retrying (or, lacking the flag, it is a DID_FAIL_TO_RENEW); else expired.
    private func lapse(after grant: Grant, at: Instant) -> (EntitlementStatus, Instant?) {
        let relevant = renewals.filter { $0.signedDate >= grant.start }
        guard !relevant.isEmpty else { return (.expired, nil) }
        var grace: (point: Int, end: Instant)?
        for (i, point) in relevant.enumerated() {
            if let end = point.facts?.gracePeriodExpiresDate, end > at, end > grant.end {
                grace = (i, end)
            }
        }
        if let grace {
            let ended = relevant[(grace.point + 1)...].contains { point in
                point.signedDate <= at
                    && (point.notificationType == "EXPIRED" || point.notificationType == "GRACE_PERIOD_EXPIRED")
            }
            if !ended { return (.gracePeriod, grace.end) }
        }
        let current = relevant.last { $0.signedDate <= at } ?? relevant[0]
        let retrying = current.facts?.isInBillingRetryPeriod ?? (current.notificationType == "DID_FAIL_TO_RENEW"
            || current.notificationType == "GRACE_PERIOD_EXPIRED")
        return (retrying ? .billingRetry : .expired, nil)
    }

    /// The renewal facts signed last at or before `at`.
    private func latestRenewal(at: Instant) -> RenewalFacts? {
        renewals.last { $0.signedDate <= at && $0.facts != nil }?.facts
    }

    /// The start of the run of back-to-back grants that ends with grant `index`.
    private func runStart(endingAt index: Int) -> Instant {
        var i = index
        while i > 0, grants[i - 1].end >= grants[i].start, grants[i - 1].end > grants[i - 1].start || i - 1 > 0 {
            i -= 1
        }
        return grants[i].start
    }
}
