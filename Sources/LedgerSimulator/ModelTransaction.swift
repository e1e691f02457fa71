import LedgerCore

/// The simulator's own record of one App Store transaction, in its latest version.
struct ModelTransaction: Sendable {
    /// How a transaction was revoked.
    struct Revocation: Sendable {
        var date: Instant
        /// 0 another reason, 1 an issue in the app; nil for Family Sharing revokes.
        var reason: Int32?
        /// `REFUND_FULL`, `REFUND_PRORATED` or `FAMILY_REVOKE`.
        var type: String
        /// Milliunits of a percent, for prorated refunds.
        var percentage: Int32?

        var isFamilyRevoke: Bool { type == "FAMILY_REVOKE" }
    }

    var transactionId: String
    var webOrderLineItemId: String
    var product: Product
    var purchase: Instant
    var expires: Instant
    /// `PURCHASE` or `RENEWAL`.
    var reason: String
    var revocation: Revocation?
    /// A refund that was later reversed: `[refunded, reversed)`, where readings differ between the version
    /// of the transaction signed then and the final one.
    var reversedRefund: (from: Instant, until: Instant)?
    var isUpgraded = false

    var devices: Int { product.devices }
}
