import LedgerCore

extension UserLifecycle {
    static let consumptionReasons = [
        "UNINTENDED_PURCHASE", "FULFILLMENT_ISSUE", "UNSATISFIED_WITH_PURCHASE", "LEGAL", "OTHER",
    ]

    /// A customer asks for a refund of the current period: sometimes Apple first sends a
    /// `CONSUMPTION_REQUEST`, then the `REFUND` follows.
    mutating func requestRefund() {
        guard !subscription.currentRevoked else { return }
        guard rng.chance(config.behaviour.consumptionRequest) else {
            applyRefund()
            return
        }
        emitConsumptionRequest(about: nil)
        let refundAt = now.adding(milliseconds: clock.scaled(rng.int(in: 2 * 3_600_000...36 * 3_600_000)))
        if refundAt < subscription.current.expires {
            queue.schedule(.applyRefund, at: refundAt, generation: generation)
        }
    }

    /// `REFUND` of the current transaction (status 5), then auto-renew is turned off; sometimes the refund is
    /// reversed weeks later.
    mutating func applyRefund() {
        guard !subscription.currentRevoked else { return }
        let prorated = rng.chance(0.15)
        subscription.current.revocation = ModelTransaction.Revocation(
            date: now, reason: rng.chance(0.3) ? 1 : 0, type: prorated ? "REFUND_PRORATED" : "REFUND_FULL",
            percentage: prorated ? Int32(rng.int(in: 10...90)) * 1000 : nil)
        emit("REFUND", status: 5)
        if subscription.autoRenew {
            let off = now.adding(milliseconds: clock.scaled(rng.int(in: 1_000...120_000), floor: 5))
            queue.schedule(.disableAfterRefund, at: off, generation: generation)
        }
        if rng.chance(config.behaviour.refundReversed) {
            let index = subscription.transactions.count - 1
            queue.schedule(
                .reverseRefund(transaction: index), at: now.adding(milliseconds: days(3, 30)), generation: nil)
        }
    }

    /// `REFUND_REVERSED`: the transaction re-signed without its revocation.
    mutating func reverseRefund(_ index: Int) {
        guard let revocation = subscription.transactions[index].revocation, !revocation.isFamilyRevoke else { return }
        subscription.transactions[index].revocation = nil
        subscription.transactions[index].reversedRefund = (revocation.date, now)
        emit("REFUND_REVERSED", transaction: index)
    }

    /// `REFUND` of a past period's transaction while the subscription goes on (status stays as it is).
    mutating func refundPast() {
        let count = subscription.transactions.count
        guard count >= 2 else { return }
        let index = rng.int(in: max(0, count - 4)...count - 2)
        guard subscription.transactions[index].revocation == nil,
            subscription.transactions[index].expires <= now
        else { return }
        subscription.transactions[index].revocation = ModelTransaction.Revocation(
            date: now, reason: rng.chance(0.3) ? 1 : 0, type: "REFUND_FULL", percentage: nil)
        emit("REFUND", transaction: index)
    }

    /// A refund request Apple will decline: `CONSUMPTION_REQUEST` about the transaction, `REFUND_DECLINED`
    /// a little later. Also how an upgraded-away transaction shows up again with `isUpgraded`.
    mutating func requestDeclinedRefund(_ index: Int) {
        emitConsumptionRequest(about: index)
        let later = now.adding(milliseconds: clock.scaled(rng.int(in: 6 * 3_600_000...72 * 3_600_000)))
        queue.schedule(.declineRefund(transaction: index), at: later, generation: nil)
    }

    /// `CONSUMPTION_REQUEST` with a reason.
    mutating func emitConsumptionRequest(about index: Int?) {
        let reason = Self.consumptionReasons[rng.int(in: 0...Self.consumptionReasons.count - 1)]
        emit("CONSUMPTION_REQUEST", transaction: index, consumptionRequestReason: reason)
    }

    /// `REVOKE`: the Family Sharing organiser stopped sharing; the transaction carries `FAMILY_REVOKE`.
    mutating func familyRevoke() {
        guard !subscription.currentRevoked else { return }
        subscription.current.revocation = ModelTransaction.Revocation(
            date: now, reason: nil, type: "FAMILY_REVOKE", percentage: nil)
        subscription.autoRenew = false
        emit("REVOKE", status: 5)
        advanceGeneration()
    }
}
