extension EntitlementFold {
    /// The state of an Apple subscription at `at`, or nil when none of its transactions had started by then.
    func state(
        of group: Index.Group, in index: Index, grants: [Grant], at: Instant, lastSeq: UInt64
    ) -> SubscriptionState? {
        guard let current = grants.lastIndex(where: { $0.start <= at }) else { return nil }
        let grant = grants[current]
        var first = current
        while first > 0, grants[first - 1].end == grants[first].start { first -= 1 }

        var status = EntitlementStatus.active
        var graceUntil: Instant?
        if at >= grant.end {
            switch grant.ending {
            case .refund: status = .refunded
            case .familyRevoke, .operatorRevoke: status = .revoked
            case .expiry, .open, .superseded:
                if let revocation = grant.revocation, revocation.at <= at {
                    status = revocation.kind == .familyRevoke ? .revoked : .refunded
                } else {
                    let next = current + 1 < grants.count ? grants[current + 1].start : nil
                    (status, graceUntil) = lapse(
                        of: group, in: index, since: grant.start, lapsedAt: grant.end, before: next, at: at)
                }
            }
        }

        let renewal = latestRenewal(of: group, in: index, at: at)
        let autoRenew = renewal.flatMap { index.facts[$0].autoRenew }
        var pending: String?
        if status == .active || status == .gracePeriod || status == .billingRetry, autoRenew != false,
            let next = renewal.flatMap({ index.facts[$0].autoRenewProductId }),
            !index.texts.equal(next, grant.productId)
        {
            pending = index.texts.string(next)
        }
        let productId = index.texts.string(grant.productId)
        let product = self.product(of: grant, index.texts)
        return SubscriptionState(
            originalTransactionId: group.originalTransactionId, productId: productId,
            productKnown: product != nil, devices: product?.devices ?? 0, period: product?.period.name,
            status: status, since: grants[first].start, expiresAt: grant.ending == .open ? nil : grant.end,
            gracePeriodExpiresAt: graceUntil, autoRenew: autoRenew, pendingProductId: pending, lastSeq: lastSeq)
    }

    /// The member carrying the latest renewal info signed at or before `at` (ties: idempotency key).
    private func latestRenewal(of group: Index.Group, in index: Index, at: Instant) -> Int? {
        var best: Int?
        var bestSigned = Instant.distantPast
        for member in index.members[group.members] {
            guard let signed = index.facts[member].renewalSigned, signed <= at else { continue }
            if let current = best {
                if signed < bestSigned { continue }
                if signed == bestSigned, index.texts.precedes(index.facts[member].key, index.facts[current].key) {
                    continue
                }
            }
            best = member
            bestSigned = signed
        }
        return best
    }

    /// What a lapsed subscription is at `at`: the latest App Store signal about billing, signed after the
    /// lapsed grant began and at or before `at`, decides between grace period, billing retry and expiry.
    ///
    /// Apple signs its word on a lapse (DID_FAIL_TO_RENEW with or without a grace period, EXPIRED) moments
    /// after the period ends, yet that word describes the subscription from the lapse on: a grace period
    /// runs from the end of the period. So while no signal about this lapse was signed by `at`, the first one
    /// signed after the lapse decides — but not one signed once the next period (`next`, the start of the
    /// next grant) began: that one speaks of a later renewal, not of this gap.
    private func lapse(
        of group: Index.Group, in index: Index, since start: Instant, lapsedAt end: Instant, before next: Instant?,
        at: Instant
    ) -> (EntitlementStatus, Instant?) {
        let members = index.members[group.members]
        func speaks(_ member: Int) -> Bool {
            Signal.speaksOfBilling(
                index.facts[member].signal, index.facts[member].gracePeriodExpires, index.facts[member].retrying)
        }
        var best: Int?
        var bestTime = Instant.distantPast
        for member in index.members[group.members] {
            guard let time = index.facts[member].signalTime, time >= start, time <= at, speaks(member) else {
                continue
            }
            if let current = best {
                if time < bestTime { continue }
                if time == bestTime, index.texts.precedes(index.facts[member].key, index.facts[current].key) {
                    continue
                }
            }
            best = member
            bestTime = time
        }
        if best == nil || bestTime < end {
            // Nothing said about this lapse yet by `at`: Apple's first word on it, signed later, applies.
            var first: Int?
            var firstTime = Instant.distantFuture
            for member in members {
                guard let time = index.facts[member].signalTime, time >= end, time > at,
                    next.map({ time < $0 }) ?? true, speaks(member)
                else {
                    continue
                }
                if let current = first {
                    if time > firstTime { continue }
                    if time == firstTime, index.texts.precedes(index.facts[current].key, index.facts[member].key) {
                        continue
                    }
                }
                first = member
                firstTime = time
            }
            if let first { best = first }
        }
        guard let best else { return (.expired, nil) }
        let signal = Signal(index.facts[best])
        if signal.kind == .expired { return (.expired, nil) }
        if let grace = signal.gracePeriodExpiresDate, grace > at { return (.gracePeriod, grace) }
        if signal.kind == .didFailToRenew || signal.kind == .didFailToRenewGracePeriod {
            if signal.kind == .didFailToRenewGracePeriod, signal.gracePeriodExpiresDate == nil {
                return (.gracePeriod, nil)
            }
            return (.billingRetry, nil)
        }
        if signal.isInBillingRetryPeriod == true { return (.billingRetry, nil) }
        if signal.kind == .gracePeriodExpired, signal.isInBillingRetryPeriod == nil {
            return (.billingRetry, nil)  // Apple keeps retrying after the grace period ends.
        }
        return (.expired, nil)
    }
}

/// The billing-relevant facts of one record.
private struct Signal {
    let time: Instant?
    let kind: EntitlementFold.SignalKind
    let gracePeriodExpiresDate: Instant?
    let isInBillingRetryPeriod: Bool?

    init(_ fact: borrowing EntitlementFold.Fact) {
        time = fact.signalTime
        kind = fact.signal
        gracePeriodExpiresDate = fact.gracePeriodExpires
        isInBillingRetryPeriod = fact.retrying
    }

    /// Whether the record says anything about billing: a billing notification type, or renewal info that
    /// states the grace period or the retry status. Others (a renewal-preference change without that
    /// information) do not override an earlier billing state.
    static func speaksOfBilling(_ kind: EntitlementFold.SignalKind, _ grace: Instant?, _ retrying: Bool?) -> Bool {
        kind != .none || grace != nil || retrying != nil
    }
}
