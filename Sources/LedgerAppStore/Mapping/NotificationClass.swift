/// What a notification (type, subtype) means to the ledger, and a short label for people: used by
/// history, reports and the timeline.
///
/// Every notification is recorded, whatever its class; the class says whether it changes an
/// entitlement. The fold reads the signed facts of every record, so an informational notification
/// that carries a newer signed transaction still updates what the ledger knows.
public struct NotificationClass: Hashable, Sendable, CustomStringConvertible {
    /// The broad kind.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let raw: String
        private init(_ raw: String) { self.raw = raw }
        /// `entitlement`, `informational` or `unknown`.
        public var description: String { raw }

        /// Changes what the user is entitled to (a purchase, renewal, plan change, expiry, refund…).
        public static let entitlement = Kind("entitlement")
        /// Recorded for the record only (TEST, CONSUMPTION_REQUEST, REFUND_DECLINED, PRICE_INCREASE…).
        public static let informational = Kind("informational")
        /// A notification type the ledger does not know: recorded raw.
        public static let unknown = Kind("unknown")
    }

    /// The broad kind.
    public var kind: Kind
    /// A short human label, e.g. `Renewed`, `Upgraded (immediate)`, `Downgrade scheduled`, `Refunded`.
    public var label: String

    /// Whether the notification changes what the user is entitled to.
    public var isEntitlementBearing: Bool { kind == .entitlement }

    /// The label.
    public var description: String { label }

    /// Classifies raw values, as a record's ``LedgerCore/NotificationFacts`` holds them.
    public init(type: String, subtype: String?) {
        self.init(type: NotificationType(rawValue: type), subtype: subtype.map(NotificationSubtype.init(rawValue:)))
    }

    /// Classifies a notification type and subtype. A known type with a subtype the ledger does not
    /// know keeps its type's class and shows the raw subtype in the label.
    public init(type: NotificationType, subtype: NotificationSubtype?) {
        guard let entry = Self.table[type] else {
            kind = .unknown
            label = "Unknown notification \(type.rawValue)" + (subtype.map { " (\($0.rawValue))" } ?? "")
            return
        }
        kind = entry.kind(subtype)
        if let subtype {
            label = entry.labels[subtype] ?? "\(entry.base) (\(subtype.rawValue))"
        } else {
            label = entry.base
        }
    }

    private struct Entry {
        var base: String
        var labels: [NotificationSubtype: String]
        var kind: @Sendable (NotificationSubtype?) -> Kind
    }

    private static func always(_ kind: Kind) -> @Sendable (NotificationSubtype?) -> Kind { { _ in kind } }

    private static let table: [NotificationType: Entry] = [
        .subscribed: Entry(
            base: "Subscribed",
            labels: [.initialBuy: "Subscribed", .resubscribe: "Resubscribed"], kind: always(.entitlement)),
        .didRenew: Entry(
            base: "Renewed", labels: [.billingRecovery: "Renewed (billing recovered)"], kind: always(.entitlement)),
        .didChangeRenewalPref: Entry(
            base: "Pending plan change cancelled",
            labels: [.upgrade: "Upgraded (immediate)", .downgrade: "Downgrade scheduled"],
            kind: always(.entitlement)),
        .didChangeRenewalStatus: Entry(
            base: "Auto-renew changed",
            labels: [.autoRenewEnabled: "Auto-renew turned on", .autoRenewDisabled: "Auto-renew turned off"],
            kind: always(.entitlement)),
        // An offer redeemed with a purchase subtype is a purchase or plan change; without one it only
        // discounts the current subscription.
        .offerRedeemed: Entry(
            base: "Offer redeemed",
            labels: [
                .initialBuy: "Offer redeemed (subscribed)", .resubscribe: "Offer redeemed (resubscribed)",
                .upgrade: "Offer redeemed (upgraded)", .downgrade: "Offer redeemed (downgrade scheduled)",
            ],
            kind: { subtype in
                switch subtype {
                case .initialBuy?, .resubscribe?, .upgrade?, .downgrade?: return .entitlement
                default: return .informational
                }
            }),
        .expired: Entry(
            base: "Expired",
            labels: [
                .voluntary: "Expired (cancelled by the user)", .billingRetry: "Expired (billing retry ended)",
                .priceIncrease: "Expired (price increase declined)",
                .productNotForSale: "Expired (product not for sale)",
            ],
            kind: always(.entitlement)),
        .didFailToRenew: Entry(
            base: "Renewal failed (billing retry)", labels: [.gracePeriod: "Renewal failed (grace period)"],
            kind: always(.entitlement)),
        .gracePeriodExpired: Entry(base: "Grace period expired", labels: [:], kind: always(.entitlement)),
        .priceIncrease: Entry(
            base: "Price increase",
            labels: [.pending: "Price increase pending consent", .accepted: "Price increase accepted"],
            kind: always(.informational)),
        .refund: Entry(base: "Refunded", labels: [:], kind: always(.entitlement)),
        .refundDeclined: Entry(base: "Refund declined", labels: [:], kind: always(.informational)),
        .refundReversed: Entry(base: "Refund reversed", labels: [:], kind: always(.entitlement)),
        .consumptionRequest: Entry(base: "Refund requested", labels: [:], kind: always(.informational)),
        .renewalExtended: Entry(base: "Renewal date extended", labels: [:], kind: always(.entitlement)),
        .revoke: Entry(base: "Family Sharing revoked", labels: [:], kind: always(.entitlement)),
        .test: Entry(base: "Test notification", labels: [:], kind: always(.informational)),
        .renewalExtension: Entry(
            base: "Renewal extension",
            labels: [.summary: "Renewal extension finished", .failure: "Renewal extension failed"],
            kind: always(.informational)),
        .oneTimeCharge: Entry(base: "One-time purchase", labels: [:], kind: always(.entitlement)),
        .externalPurchaseToken: Entry(
            base: "External purchase token", labels: [.unreported: "External purchase token unreported"],
            kind: always(.informational)),
        .rescindConsent: Entry(base: "Consent rescinded", labels: [:], kind: always(.informational)),
        .metadataUpdate: Entry(base: "Subscription metadata updated", labels: [:], kind: always(.informational)),
        .migration: Entry(base: "Subscription migrated", labels: [:], kind: always(.informational)),
        .priceChange: Entry(base: "Price changed", labels: [:], kind: always(.informational)),
    ]
}
