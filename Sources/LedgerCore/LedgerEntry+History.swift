extension LedgerEntry {
    /// The instant the record takes effect, for history and reports:
    /// corrections at their `from`; links when recorded; refunds, revocations and their reversals at the
    /// transaction's revocationDate (else when signed); purchases, renewals, upgrades, resubscribes and
    /// reconciled transactions at the transaction's purchaseDate; anything else when Apple signed it.
    public var effectiveAt: Instant {
        let record = self.record
        if let correction = record.correction { return correction.effectiveAt }
        if record.link != nil { return recordedAt }
        let transaction = record.transaction
        if let notification = record.notification {
            switch notification.type {
            case "REFUND", "REVOKE", "REFUND_REVERSED":
                return transaction?.revocationDate ?? notification.signedDate
            case "SUBSCRIBED", "DID_RENEW", "OFFER_REDEEMED":
                return transaction?.purchaseDate ?? notification.signedDate
            case "DID_CHANGE_RENEWAL_PREF" where notification.subtype == "UPGRADE":
                return transaction?.purchaseDate ?? notification.signedDate
            default:
                return notification.signedDate
            }
        }
        if let transaction { return transaction.purchaseDate }
        if let renewal = record.renewal { return renewal.signedDate }
        return recordedAt
    }

    /// A short name for what the record says, for timelines: `purchase`, `resubscribe`, `renewal`,
    /// `billingRecovery`, `upgrade`, `downgrade`, `renewalPreference`, `autoRenewOn`, `autoRenewOff`, `expiry`,
    /// `billingFailure`, `gracePeriodStart`, `gracePeriodExpired`, `refund`, `refundDeclined`, `refundReversed`,
    /// `revoke`, `renewalExtended`, `priceIncrease`, `offerRedeemed`, `consumptionRequest`, `test`,
    /// `informational`, `notification` (an unknown type), `transaction` / `subscriptionStatus` / `legacyReceipt`
    /// (reconciled facts), `correction`, `link`.
    public var kind: String {
        let record = self.record
        if record.correction != nil { return "correction" }
        if record.link != nil { return "link" }
        guard let notification = record.notification else {
            switch record.source {
            case .transactionHistory: return "transaction"
            case .subscriptionStatus: return "subscriptionStatus"
            case .legacyReceipt: return "legacyReceipt"
            default: return "record"
            }
        }
        switch (notification.type, notification.subtype) {
        case ("SUBSCRIBED", "RESUBSCRIBE"): return "resubscribe"
        case ("SUBSCRIBED", _): return "purchase"
        case ("DID_RENEW", "BILLING_RECOVERY"): return "billingRecovery"
        case ("DID_RENEW", _): return "renewal"
        case ("DID_CHANGE_RENEWAL_PREF", "UPGRADE"): return "upgrade"
        case ("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE"): return "downgrade"
        case ("DID_CHANGE_RENEWAL_PREF", _): return "renewalPreference"
        case ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED"): return "autoRenewOn"
        case ("DID_CHANGE_RENEWAL_STATUS", _): return "autoRenewOff"
        case ("EXPIRED", _): return "expiry"
        case ("DID_FAIL_TO_RENEW", "GRACE_PERIOD"): return "gracePeriodStart"
        case ("DID_FAIL_TO_RENEW", _): return "billingFailure"
        case ("GRACE_PERIOD_EXPIRED", _): return "gracePeriodExpired"
        case ("REFUND", _): return "refund"
        case ("REFUND_DECLINED", _): return "refundDeclined"
        case ("REFUND_REVERSED", _): return "refundReversed"
        case ("REVOKE", _): return "revoke"
        case ("RENEWAL_EXTENDED", _), ("RENEWAL_EXTENSION", _): return "renewalExtended"
        case ("PRICE_INCREASE", _): return "priceIncrease"
        case ("OFFER_REDEEMED", _): return "offerRedeemed"
        case ("CONSUMPTION_REQUEST", _): return "consumptionRequest"
        case ("TEST", _): return "test"
        case ("ONE_TIME_CHARGE", _), ("EXTERNAL_PURCHASE_TOKEN", _), ("RESCIND_CONSENT", _), ("METADATA_UPDATE", _),
            ("MIGRATION", _), ("PRICE_CHANGE", _):
            return "informational"
        default: return "notification"
        }
    }
}
