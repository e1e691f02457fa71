import LedgerCore

extension UserLifecycle {
    /// The end of a period: a renewal, a voluntary expiry, or a failed charge.
    mutating func periodEnd() {
        let txn = subscription.current
        if let revocation = txn.revocation, revocation.isFamilyRevoke { return }  // access is gone for good
        let capped = config.isSandbox && subscription.renewalsInRun >= SimulationConfig.sandboxRenewalLimit
        if !subscription.autoRenew || txn.revocation != nil || capped {
            subscription.autoRenew = false
            subscription.expirationIntent = 1
            emit("EXPIRED", "VOLUNTARY", status: 2)
            considerResubscribing(after: txn.expires)
            return
        }
        if timeline.profile != .familyMember && rng.chance(config.behaviour.billingFailure) {
            failToRenew()
            return
        }
        renew(at: txn.expires, subtype: nil)
    }

    /// `DID_RENEW`: a new transaction of the auto-renew product for the next period.
    ///
    /// As in genuine sandbox data, the App Store sometimes signs a renewal a few seconds before its
    /// `purchaseDate`.
    mutating func renew(at purchase: Instant, subtype: String?) {
        let product = subscription.autoRenewProduct
        let next = newTransaction(product, purchase: purchase, reason: "RENEWAL")
        subscription.transactions.append(next)
        subscription.renewalsInRun += 1
        subscription.offerIdentifier = nil
        subscription.inBillingRetry = false
        subscription.gracePeriodExpires = nil
        subscription.expirationIntent = nil
        let early = subtype == nil && rng.chance(0.3)
        let signed = early ? now.adding(milliseconds: -clock.scaled(rng.int(in: 1_000...30_000), floor: 1)) : now
        emit("DID_RENEW", subtype, status: 1, signedDate: signed)
        beginPeriod()
    }

    /// `DID_FAIL_TO_RENEW`, with (`GRACE_PERIOD`) or without billing grace, and what follows.
    mutating func failToRenew() {
        let expired = subscription.current
        let behaviour = config.behaviour
        let hasGrace = rng.chance(behaviour.grace)
        let graceUntil =
            hasGrace ? expired.expires.adding(milliseconds: clock.gracePeriod(for: expired.product.period)) : nil
        let retryUntil = expired.expires.adding(milliseconds: clock.billingRetryPeriod)
        advanceGeneration()
        subscription.lapses.append(Lapse(from: expired.expires, graceUntil: graceUntil, retryUntil: retryUntil))
        subscription.inBillingRetry = true
        subscription.gracePeriodExpires = graceUntil
        emit("DID_FAIL_TO_RENEW", hasGrace ? "GRACE_PERIOD" : nil, status: hasGrace ? 4 : 3)
        let g = generation
        if let graceUntil {
            if rng.chance(behaviour.recoveryInGrace) {
                queue.schedule(
                    .recover(inGrace: true), at: instant(between: now, and: graceUntil, lower: 0.05, upper: 0.95),
                    generation: g)
            } else {
                queue.schedule(.graceExpired, at: graceUntil, generation: g)
            }
        } else {
            scheduleRetryOutcome(from: now, until: retryUntil)
        }
    }

    /// Billing retry goes on: a recovery (most early on) or, at the end of the retry period, an expiry.
    mutating func scheduleRetryOutcome(from: Instant, until: Instant) {
        if rng.chance(config.behaviour.recoveryInRetry) {
            let u = 0.02 + rng.unit() * 0.93
            queue.schedule(
                .recover(inGrace: false), at: instant(between: from, and: until, lower: u * u, upper: u * u),
                generation: generation)
        } else {
            queue.schedule(.retryExpired, at: until, generation: generation)
        }
    }

    /// `GRACE_PERIOD_EXPIRED`: no longer entitled; retries go on.
    mutating func graceExpired() {
        subscription.gracePeriodExpires = nil
        emit("GRACE_PERIOD_EXPIRED", status: 3)
        guard let lapse = subscription.lapses.last else { return }
        scheduleRetryOutcome(from: now, until: lapse.retryUntil)
    }

    /// `DID_RENEW`/`BILLING_RECOVERY`. Inside grace the renewal keeps its date (no paid days lost); during
    /// billing retry the new period starts now.
    mutating func recover(inGrace: Bool) {
        let lapseIndex = subscription.lapses.count - 1
        let from = subscription.lapses[lapseIndex].from
        subscription.lapses[lapseIndex].recoveredAt = now
        subscription.lapses[lapseIndex].recoveredInGrace = inGrace
        subscription.lapses[lapseIndex].retryUntil = now
        renew(at: inGrace ? from : now, subtype: "BILLING_RECOVERY")
    }

    /// `EXPIRED`/`BILLING_RETRY`: Apple gave up charging.
    mutating func retryExpired() {
        subscription.inBillingRetry = false
        subscription.gracePeriodExpires = nil
        subscription.autoRenew = false
        subscription.expirationIntent = 2
        emit("EXPIRED", "BILLING_RETRY", status: 2)
        considerResubscribing(after: now)
    }

    /// Some users come back after an expiry.
    mutating func considerResubscribing(after expiry: Instant) {
        advanceGeneration()
        guard timeline.profile != .familyMember, rng.chance(config.behaviour.resubscribe) else { return }
        queue.schedule(.resubscribe, at: max(now, expiry).adding(milliseconds: days(3, 120)), generation: generation)
    }

    /// `SUBSCRIBED`/`RESUBSCRIBE`: a new purchase in the same subscription (same original transaction id),
    /// the same product or another.
    mutating func resubscribe() {
        let previous = subscription.current
        let product = rng.chance(0.6) ? previous.product : pickProduct()
        let next = newTransaction(product, purchase: now, reason: "PURCHASE")
        subscription.transactions.append(next)
        subscription.autoRenew = true
        subscription.autoRenewProduct = product
        subscription.expirationIntent = nil
        subscription.inBillingRetry = false
        subscription.gracePeriodExpires = nil
        subscription.priceIncreaseStatus = nil
        subscription.offerIdentifier = nil
        subscription.renewalsInRun = 0
        let lapsedSince = subscription.lapses.last.map { max($0.retryUntil, previous.expires) } ?? previous.expires
        if now.milliseconds - lapsedSince.milliseconds >= clock.days(60) { subscription.recentStart = now }
        emit("SUBSCRIBED", "RESUBSCRIBE", status: 1)
        beginPeriod()
    }
}
