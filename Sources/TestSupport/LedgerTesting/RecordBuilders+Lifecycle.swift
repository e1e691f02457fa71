import LedgerCore

extension SubscriptionScript {
    /// `SUBSCRIBED`/`INITIAL_BUY`: the first purchase, starting at `at`.
    public mutating func subscribe(_ productId: String, at: Instant, expiresAfterDays: Int? = nil) -> LedgerRecord {
        let transaction = newTransaction(
            productId, start: at, signed: at, reason: "PURCHASE", expiresAfterDays: expiresAfterDays)
        let otid = originalTransactionId
        let info = signRenewal(at: at) {
            $0 = RenewalFacts(
                originalTransactionId: otid, productId: productId, autoRenewProductId: productId,
                autoRenewStatus: true, isInBillingRetryPeriod: false, recentSubscriptionStartDate: at, signedDate: at)
        }
        return notification("SUBSCRIBED", "INITIAL_BUY", at: at, status: 1, transaction: transaction, renewal: info)
    }

    /// `DID_RENEW`: a new transaction of the auto-renew product, from the current period's end; Apple signs
    /// it at `signedAt` (default: that instant; real deliveries are sometimes signed before it).
    public mutating func renew(signedAt: Instant? = nil) -> LedgerRecord {
        let start = current?.expiresDate ?? .distantPast
        let product = renewal?.autoRenewProductId ?? current?.productId ?? ""
        let signed = signedAt ?? start
        let transaction = newTransaction(product, start: start, signed: signed, reason: "RENEWAL")
        let info = signRenewal(at: signed) { $0.productId = product }
        return notification("DID_RENEW", at: signed, status: 1, transaction: transaction, renewal: info)
    }

    /// `DID_CHANGE_RENEWAL_PREF`/`UPGRADE`: an immediate upgrade (or same-duration crossgrade) at `at`: a new
    /// transaction starts then; the old one is later marked `isUpgraded`.
    public mutating func upgrade(to productId: String, at: Instant) -> LedgerRecord {
        let previous = currentTransactionId
        _ = resign(previous, at: at) { $0.isUpgraded = true }
        let transaction = newTransaction(productId, start: at, signed: at, reason: "PURCHASE")
        let info = signRenewal(at: at) {
            $0.productId = productId
            $0.autoRenewProductId = productId
        }
        return notification(
            "DID_CHANGE_RENEWAL_PREF", "UPGRADE", at: at, status: 1, transaction: transaction, renewal: info)
    }

    /// `DID_CHANGE_RENEWAL_PREF`/`DOWNGRADE`: a downgrade (or different-duration crossgrade) that takes effect
    /// at the next renewal: the transaction is unchanged, renewal info names the new product.
    public mutating func downgrade(to productId: String, at: Instant) -> LedgerRecord {
        let transaction = resign(at: at)
        let info = signRenewal(at: at) { $0.autoRenewProductId = productId }
        return notification(
            "DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", at: at, status: 1, transaction: transaction, renewal: info)
    }

    /// `DID_CHANGE_RENEWAL_PREF` without subtype: back to the current product (a pending change cancelled).
    public mutating func cancelPendingChange(at: Instant) -> LedgerRecord {
        let transaction = resign(at: at)
        let info = signRenewal(at: at) { $0.autoRenewProductId = $0.productId }
        return notification("DID_CHANGE_RENEWAL_PREF", at: at, status: 1, transaction: transaction, renewal: info)
    }

    /// `DID_CHANGE_RENEWAL_STATUS`: auto-renew turned on or off.
    public mutating func setAutoRenew(_ enabled: Bool, at: Instant) -> LedgerRecord {
        let transaction = resign(at: at)
        let info = signRenewal(at: at) { $0.autoRenewStatus = enabled }
        let status: Int32 = (current?.expiresDate).map { $0 > at } ?? true ? 1 : 2
        return notification(
            "DID_CHANGE_RENEWAL_STATUS", enabled ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED", at: at,
            status: status, transaction: transaction, renewal: info)
    }

    /// `EXPIRED` with a subtype (`VOLUNTARY`, `BILLING_RETRY`, `PRICE_INCREASE`, `PRODUCT_NOT_FOR_SALE`).
    public mutating func expire(_ subtype: String = "VOLUNTARY", at: Instant) -> LedgerRecord {
        let transaction = resign(at: at)
        let intent: Int32 =
            switch subtype {
            case "VOLUNTARY": 1
            case "BILLING_RETRY": 2
            case "PRICE_INCREASE": 3
            case "PRODUCT_NOT_FOR_SALE": 4
            default: 5
            }
        let info = signRenewal(at: at) {
            $0.autoRenewStatus = false
            $0.isInBillingRetryPeriod = false
            $0.gracePeriodExpiresDate = nil
            $0.expirationIntent = intent
        }
        return notification("EXPIRED", subtype, at: at, status: 2, transaction: transaction, renewal: info)
    }

    /// `DID_FAIL_TO_RENEW`: the renewal charge failed; with `graceUntil`, subtype `GRACE_PERIOD` (still
    /// entitled until then, status 4), else no subtype (billing retry, status 3).
    public mutating func failToRenew(graceUntil: Instant?, at: Instant) -> LedgerRecord {
        let transaction = resign(at: at)
        let info = signRenewal(at: at) {
            $0.isInBillingRetryPeriod = true
            $0.gracePeriodExpiresDate = graceUntil
        }
        return notification(
            "DID_FAIL_TO_RENEW", graceUntil == nil ? nil : "GRACE_PERIOD", at: at, status: graceUntil == nil ? 3 : 4,
            transaction: transaction, renewal: info)
    }

    /// `GRACE_PERIOD_EXPIRED`: the grace period ended without a renewal; Apple keeps retrying (status 3).
    public mutating func gracePeriodExpired(at: Instant) -> LedgerRecord {
        let transaction = resign(at: at)
        let info = signRenewal(at: at) { $0.isInBillingRetryPeriod = true }
        return notification("GRACE_PERIOD_EXPIRED", at: at, status: 3, transaction: transaction, renewal: info)
    }

    /// `DID_RENEW`/`BILLING_RECOVERY`: a failed renewal finally succeeded at `at`; a new period starts then.
    public mutating func recover(at: Instant) -> LedgerRecord {
        let product = renewal?.autoRenewProductId ?? current?.productId ?? ""
        let transaction = newTransaction(product, start: at, signed: at, reason: "RENEWAL")
        let info = signRenewal(at: at) {
            $0.productId = product
            $0.isInBillingRetryPeriod = false
            $0.gracePeriodExpiresDate = nil
        }
        return notification(
            "DID_RENEW", "BILLING_RECOVERY", at: at, status: 1, transaction: transaction, renewal: info)
    }

    /// `REFUND` of a transaction (default: the current one), revoked at `at`.
    public mutating func refund(_ transactionId: String? = nil, at: Instant) -> LedgerRecord {
        let isCurrent = transactionId == nil || transactionId == currentTransactionId
        let transaction = resign(transactionId, at: at) {
            $0.revocationDate = at
            $0.revocationReason = 0
            $0.revocationType = "REFUND_FULL"
        }
        let info = signRenewal(at: at) { if isCurrent { $0.autoRenewStatus = false } }
        return notification("REFUND", at: at, status: isCurrent ? 5 : 1, transaction: transaction, renewal: info)
    }

    /// `REFUND_REVERSED`: a refund undone; the transaction is re-signed without its revocation.
    public mutating func reverseRefund(_ transactionId: String? = nil, at: Instant) -> LedgerRecord {
        let transaction = resign(transactionId, at: at) {
            $0.revocationDate = nil
            $0.revocationReason = nil
            $0.revocationType = nil
        }
        let info = signRenewal(at: at)
        return notification("REFUND_REVERSED", at: at, status: 1, transaction: transaction, renewal: info)
    }

    /// `REVOKE`: Family Sharing access removed at `at` (revocationType `FAMILY_REVOKE`).
    public mutating func familyRevoke(at: Instant) -> LedgerRecord {
        let transaction = resign(at: at) {
            $0.revocationDate = at
            $0.revocationType = "FAMILY_REVOKE"
        }
        let info = signRenewal(at: at) { $0.autoRenewStatus = false }
        return notification("REVOKE", at: at, status: 5, transaction: transaction, renewal: info)
    }

    /// `RENEWAL_EXTENDED`: the current transaction re-signed with its expiresDate moved by `days`.
    public mutating func extendRenewal(byDays days: Int, at: Instant) -> LedgerRecord {
        let transaction = resign(at: at) {
            $0.expiresDate = $0.expiresDate?.adding(milliseconds: Int64(days) * 86_400_000)
        }
        let info = signRenewal(at: at)
        return notification("RENEWAL_EXTENDED", at: at, status: 1, transaction: transaction, renewal: info)
    }

    /// `SUBSCRIBED`/`RESUBSCRIBE`: a new purchase in the same subscription after it lapsed.
    public mutating func resubscribe(_ productId: String, at: Instant) -> LedgerRecord {
        let transaction = newTransaction(productId, start: at, signed: at, reason: "PURCHASE")
        let otid = originalTransactionId
        let info = signRenewal(at: at) {
            $0 = RenewalFacts(
                originalTransactionId: otid, productId: productId, autoRenewProductId: productId,
                autoRenewStatus: true, isInBillingRetryPeriod: false, recentSubscriptionStartDate: at, signedDate: at)
        }
        return notification("SUBSCRIBED", "RESUBSCRIBE", at: at, status: 1, transaction: transaction, renewal: info)
    }

    /// Any other notification (e.g. `CONSUMPTION_REQUEST`, or a type Apple adds later) carrying the current
    /// transaction and renewal info.
    public mutating func other(_ type: String, _ subtype: String? = nil, at: Instant) -> LedgerRecord {
        let transaction = resign(at: at)
        let info = signRenewal(at: at)
        return notification(type, subtype, at: at, status: nil, transaction: transaction, renewal: info)
    }
}

extension LedgerRecord {
    /// The record's transaction as it arrives without a notification (reconciled from the transaction history, or
    /// read from a legacy receipt): no notification, no renewal info, under an idempotency key of its own.
    public func reconciled(from source: RecordSource = .transactionHistory) -> LedgerRecord {
        var record = self
        record.source = source
        record.notification = nil
        record.renewal = nil
        record.idempotencyKey = "\(source):\(idempotencyKey)"
        return record
    }
}
