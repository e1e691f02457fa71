import LedgerCore

extension UserLifecycle {
    /// The first purchase: `SUBSCRIBED`/`INITIAL_BUY`.
    mutating func subscribe() {
        let product = pickProduct()
        let first = newTransaction(product, purchase: now, reason: "PURCHASE")
        let token = timeline.profile == .orphan ? nil : timeline.accountToken
        let ownership = timeline.profile == .familyMember ? "FAMILY_SHARED" : "PURCHASED"
        timeline.subscription = SubscriptionModel(
            originalTransactionId: first.transactionId, ownership: ownership, accountToken: token, first: first)
        emit("SUBSCRIBED", "INITIAL_BUY", status: 1)
        beginPeriod()
    }

    /// Plans what happens during the current transaction's period, and its end.
    mutating func beginPeriod() {
        advanceGeneration()
        let txn = subscription.current
        let from = max(now, txn.purchase)
        let to = txn.expires
        let months = txn.product.period.months ?? 1
        let behaviour = config.behaviour
        let g = generation
        queue.schedule(.periodEnd, at: to, generation: g)

        if timeline.profile == .familyMember {
            if rng.chance(perPeriod(behaviour.familyRevoke, months: months)) {
                queue.schedule(
                    .familyRevoke, at: instant(between: from, and: to, lower: 0.05, upper: 0.95), generation: g)
            }
            if rng.chance(perPeriod(behaviour.churn, months: months)) {
                queue.schedule(
                    .disableAutoRenew, at: instant(between: from, and: to, lower: 0.05, upper: 0.9), generation: g)
            }
            return
        }
        if rng.chance(perPeriod(behaviour.churn, months: months)) {
            let off = instant(between: from, and: to, lower: 0.03, upper: 0.9)
            queue.schedule(.disableAutoRenew, at: off, generation: g)
            if rng.chance(behaviour.reenable) {
                queue.schedule(
                    .enableAutoRenew, at: instant(between: off, and: to, lower: 0.1, upper: 0.9), generation: g)
            }
        }
        if rng.chance(perPeriod(behaviour.upgrade, months: months)) {
            queue.schedule(.upgrade, at: instant(between: from, and: to, lower: 0.05, upper: 0.9), generation: g)
        }
        if rng.chance(perPeriod(behaviour.downgrade, months: months)) {
            let change = instant(between: from, and: to, lower: 0.05, upper: 0.8)
            queue.schedule(.downgrade, at: change, generation: g)
            if rng.chance(behaviour.downgradeCancelled) {
                queue.schedule(
                    .cancelDowngrade, at: instant(between: change, and: to, lower: 0.1, upper: 0.9), generation: g)
            }
        }
        if rng.chance(behaviour.refund) {
            queue.schedule(.requestRefund, at: instant(between: from, and: to, lower: 0.02, upper: 0.7), generation: g)
        }
        if rng.chance(behaviour.pastRefund) {
            queue.schedule(.refundPast, at: instant(between: from, and: to, lower: 0.05, upper: 0.9), generation: g)
        }
        if rng.chance(behaviour.refundDeclined) {
            let index = subscription.transactions.count - 1
            queue.schedule(
                .requestDeclinedRefund(transaction: index),
                at: instant(between: from, and: to, lower: 0.05, upper: 0.8),
                generation: g)
        }
        if rng.chance(behaviour.priceIncrease) {
            queue.schedule(.priceIncrease, at: instant(between: from, and: to, lower: 0.05, upper: 0.8), generation: g)
        }
        if rng.chance(behaviour.offerRedeemed) {
            queue.schedule(.offerRedeemed, at: instant(between: from, and: to, lower: 0.05, upper: 0.9), generation: g)
        }
        if rng.chance(behaviour.renewalExtension) {
            queue.schedule(.extendRenewal, at: instant(between: from, and: to, lower: 0.5, upper: 0.95), generation: g)
        }
    }

    /// `DID_CHANGE_RENEWAL_STATUS` `AUTO_RENEW_DISABLED` / `AUTO_RENEW_ENABLED`.
    mutating func setAutoRenew(_ on: Bool) {
        guard subscription.autoRenew != on, !(on && subscription.currentRevoked) else { return }
        subscription.autoRenew = on
        emit("DID_CHANGE_RENEWAL_STATUS", on ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED")
    }

    /// `DID_CHANGE_RENEWAL_PREF`/`UPGRADE`: immediate, a new transaction and a new period from now.
    mutating func upgrade() {
        let current = subscription.current
        guard !subscription.currentRevoked else { return }
        let samePeriod = rng.chance(0.85)
        let wanted = current.product.devices + rng.int(in: 1...3)
        let candidates = products.filter {
            $0.devices > current.product.devices && (!samePeriod || $0.period == current.product.period)
        }
        guard !candidates.isEmpty else { return }
        let target = candidates.min { abs($0.devices - wanted) < abs($1.devices - wanted) }!
        subscription.current.isUpgraded = true
        let next = newTransaction(target, purchase: now, reason: "PURCHASE")
        subscription.transactions.append(next)
        subscription.autoRenewProduct = target
        subscription.autoRenew = true
        subscription.offerIdentifier = nil
        emit("DID_CHANGE_RENEWAL_PREF", "UPGRADE", status: 1)
        if rng.chance(config.behaviour.upgradedResigned) {
            // The upgraded-away transaction shows up again later, re-signed with isUpgraded.
            let index = subscription.transactions.count - 2
            queue.schedule(
                .requestDeclinedRefund(transaction: index), at: now.adding(milliseconds: days(1, 10)), generation: nil)
        }
        beginPeriod()
    }

    /// `DID_CHANGE_RENEWAL_PREF`/`DOWNGRADE`: fewer devices, or the same devices over another duration (a
    /// crossgrade Apple reports as a downgrade); takes effect at the next renewal.
    mutating func downgrade() {
        let current = subscription.current.product
        guard !subscription.currentRevoked, subscription.autoRenewProduct == current else { return }
        let target: Product?
        if current.devices > 1 && rng.chance(0.75) {
            let wanted = max(1, current.devices - rng.int(in: 1...2))
            target =
                products.first { $0.devices == wanted && $0.period == current.period }
                ?? products.filter { $0.devices < current.devices && $0.period == current.period }.last
        } else {
            let others = products.filter { $0.devices == current.devices && $0.period != current.period }
            target = others.isEmpty ? nil : others[rng.int(in: 0...others.count - 1)]
        }
        guard let target else { return }
        subscription.autoRenewProduct = target
        subscription.autoRenew = true
        emit("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE")
    }

    /// `DID_CHANGE_RENEWAL_PREF` without subtype: back to the current product, cancelling the downgrade.
    mutating func cancelDowngrade() {
        let current = subscription.current.product
        guard subscription.autoRenewProduct != current else { return }
        subscription.autoRenewProduct = current
        emit("DID_CHANGE_RENEWAL_PREF")
    }

    /// `PRICE_INCREASE`/`PENDING`, sometimes accepted later.
    mutating func priceIncrease() {
        subscription.priceIncreaseStatus = 0
        emit("PRICE_INCREASE", "PENDING")
        if rng.chance(0.6) {
            queue.schedule(.acceptPriceIncrease, at: now.adding(milliseconds: days(1, 10)), generation: nil)
        }
    }

    /// `PRICE_INCREASE`/`ACCEPTED`.
    mutating func acceptPriceIncrease() {
        guard subscription.priceIncreaseStatus == 0 else { return }
        subscription.priceIncreaseStatus = 1
        emit("PRICE_INCREASE", "ACCEPTED")
    }

    /// `OFFER_REDEEMED` without subtype: an offer code redeemed for the active subscription.
    mutating func offerRedeemed() {
        guard !subscription.currentRevoked else { return }
        subscription.offerIdentifier = "visla_loyalty_\(rng.int(in: 1...4))"
        emit("OFFER_REDEEMED")
    }

    /// `RENEWAL_EXTENDED`: the same transaction re-signed with a later `expiresDate`.
    mutating func extendRenewal() {
        guard !subscription.currentRevoked else { return }
        subscription.current.expires = subscription.current.expires.adding(milliseconds: days(7, 30))
        emit("RENEWAL_EXTENDED")
        advanceGeneration()
        queue.schedule(.periodEnd, at: subscription.current.expires, generation: generation)
    }
}
