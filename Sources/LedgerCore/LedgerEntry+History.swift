extension LedgerEntry {
    /// The instant the record takes effect, which orders a subject's history.
    ///
    /// - a correction: its `from`;
    /// - a link or a void: when it was recorded;
    /// - `REFUND`, `REVOKE`, `REFUND_REVERSED`: the transaction's revocationDate, else the signedDate;
    /// - a purchase, renewal, upgrade or resubscribe (`SUBSCRIBED`, `DID_RENEW`, `OFFER_REDEEMED`,
    ///   `DID_CHANGE_RENEWAL_PREF`/`UPGRADE`): the transaction's purchaseDate;
    /// - a transaction imported from the App Store Server API or a receipt: its purchaseDate;
    /// - anything else: the notification's signedDate (renewal info alone: its signedDate; otherwise when the
    ///   ledger recorded it).
    public var effectiveAt: Instant {
        if let correction = record.correction { return correction.effectiveAt }
        if record.source == .link || record.source == .void || record.void != nil { return recordedAt }
        if let notification = record.notification {
            switch notification.type {
            case NotificationType.refund, NotificationType.revoke, NotificationType.refundReversed:
                return record.transaction?.revocationDate ?? notification.signedDate
            case NotificationType.subscribed, NotificationType.didRenew, NotificationType.offerRedeemed:
                return record.transaction?.purchaseDate ?? notification.signedDate
            case NotificationType.didChangeRenewalPref where notification.subtype == NotificationSubtype.upgrade:
                return record.transaction?.purchaseDate ?? notification.signedDate
            default:
                return notification.signedDate
            }
        }
        if let transaction = record.transaction { return transaction.purchaseDate }
        return record.renewal?.signedDate ?? recordedAt
    }

    /// A short name for what the record is, for the history and reports:
    ///
    /// | kind | records |
    /// |---|---|
    /// | `purchase` | `SUBSCRIBED`/`INITIAL_BUY`, `OFFER_REDEEMED`/`INITIAL_BUY`, `ONE_TIME_CHARGE` |
    /// | `resubscribe` | `SUBSCRIBED`/`RESUBSCRIBE`, `OFFER_REDEEMED`/`RESUBSCRIBE` |
    /// | `renewal` | `DID_RENEW` |
    /// | `billingRecovery` | `DID_RENEW`/`BILLING_RECOVERY` |
    /// | `upgrade` / `downgrade` | `DID_CHANGE_RENEWAL_PREF` or `OFFER_REDEEMED` with that subtype |
    /// | `renewalPreference` | `DID_CHANGE_RENEWAL_PREF` without subtype (a pending change cancelled) |
    /// | `offerRedeemed` | `OFFER_REDEEMED` without subtype |
    /// | `autoRenewStatus` | `DID_CHANGE_RENEWAL_STATUS` |
    /// | `expiry` | `EXPIRED` |
    /// | `billingFailure` | `DID_FAIL_TO_RENEW` |
    /// | `gracePeriodExpired` | `GRACE_PERIOD_EXPIRED` |
    /// | `refund` / `refundReversed` / `refundDeclined` | `REFUND` / `REFUND_REVERSED` / `REFUND_DECLINED` |
    /// | `revoke` | `REVOKE` (Family Sharing) |
    /// | `renewalExtended` | `RENEWAL_EXTENDED`, `RENEWAL_EXTENSION` |
    /// | `priceIncrease` | `PRICE_INCREASE` |
    /// | `informational` | `CONSUMPTION_REQUEST`, `TEST`, and the other known types without effect |
    /// | `unknown` | a notification type the ledger does not know (kept, never fatal) |
    /// | `transaction` / `renewalInfo` | a transaction / renewal info imported from the Server API or a receipt |
    /// | `correction` / `link` / `void` | an operator's correction / link / void |
    public var kind: String {
        if record.source == .correction || record.correction != nil { return "correction" }
        if record.source == .link || record.link != nil { return "link" }
        if record.source == .void || record.void != nil { return "void" }
        guard let notification = record.notification else {
            if record.transaction != nil { return "transaction" }
            return record.renewal != nil ? "renewalInfo" : "unknown"
        }
        let subtype = notification.subtype
        switch notification.type {
        case NotificationType.subscribed:
            return subtype == NotificationSubtype.resubscribe ? "resubscribe" : "purchase"
        case NotificationType.didRenew:
            return subtype == NotificationSubtype.billingRecovery ? "billingRecovery" : "renewal"
        case NotificationType.didChangeRenewalPref, NotificationType.offerRedeemed:
            switch subtype {
            case NotificationSubtype.upgrade: return "upgrade"
            case NotificationSubtype.downgrade: return "downgrade"
            case NotificationSubtype.initialBuy: return "purchase"
            case NotificationSubtype.resubscribe: return "resubscribe"
            default:
                return notification.type == NotificationType.offerRedeemed ? "offerRedeemed" : "renewalPreference"
            }
        case NotificationType.didChangeRenewalStatus: return "autoRenewStatus"
        case NotificationType.expired: return "expiry"
        case NotificationType.didFailToRenew: return "billingFailure"
        case NotificationType.gracePeriodExpired: return "gracePeriodExpired"
        case NotificationType.refund: return "refund"
        case NotificationType.refundReversed: return "refundReversed"
        case NotificationType.refundDeclined: return "refundDeclined"
        case NotificationType.revoke: return "revoke"
        case NotificationType.renewalExtended, NotificationType.renewalExtension: return "renewalExtended"
        case NotificationType.priceIncrease: return "priceIncrease"
        case NotificationType.oneTimeCharge: return "purchase"
        case NotificationType.consumptionRequest, NotificationType.test, NotificationType.externalPurchaseToken,
            NotificationType.rescindConsent, NotificationType.metadataUpdate, NotificationType.migration,
            NotificationType.priceChange:
            return "informational"
        default:
            return "unknown"
        }
    }

    /// Whether this entry comes before another in a history: by effective time, then sequence number.
    public func precedesInHistory(_ other: LedgerEntry) -> Bool {
        let (mine, theirs) = (effectiveAt, other.effectiveAt)
        return mine != theirs ? mine < theirs : seq < other.seq
    }
}
