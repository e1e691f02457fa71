import LedgerCore

/// The idempotency keys of imported (non-notification) records: built from content, so importing
/// the same response twice yields the same keys and the log keeps one copy.
///
/// Signed imports key on the signed dates: Apple signs a fresh version of a transaction for every
/// API response, and each version is a fact of its own (the fold takes the latest signed). Whether a
/// fresh version adds anything the log lacks is ``KnownFacts``'s question, not the key's. Legacy
/// receipts carry no signed date, so their keys are the facts that can change.
public enum ReconcileKey {
    /// `txn:<transactionId>:<signedDate ms>`: one signed version of a transaction from Get Transaction History.
    public static func transaction(_ transaction: TransactionPayload) -> String {
        "txn:\(transaction.transactionId):\(transaction.signedDate.milliseconds)"
    }

    /// `status:<originalTransactionId>:<transaction signedDate ms>:<renewal signedDate ms or ->`: one
    /// signed status of a subscription from Get All Subscription Statuses.
    public static func status(_ transaction: TransactionPayload, _ renewal: RenewalInfoPayload?) -> String {
        let renewalDate = renewal.map { String($0.signedDate.milliseconds) } ?? "-"
        return "status:\(transaction.originalTransactionId):\(transaction.signedDate.milliseconds):\(renewalDate)"
    }

    /// `legacy:<transaction_id>:<expires_date_ms or ->:<cancellation_date_ms or ->`: one state of a
    /// transaction in a legacy receipt.
    public static func legacyTransaction(_ facts: TransactionFacts) -> String {
        "legacy:\(facts.transactionId):\(dash(facts.expiresDate)):\(dash(facts.revocationDate))"
    }

    /// `legacy-renewal:<original_transaction_id>:<auto_renew_product_id or ->:<auto_renew_status>:`
    /// `<is_in_billing_retry_period>:<grace_period_expires_date_ms>:<expiration_intent>` (each `-` when
    /// absent): one state of a subscription's pending renewal in a legacy receipt.
    public static func legacyRenewal(_ facts: RenewalFacts) -> String {
        let parts = [
            facts.autoRenewProductId ?? "-", flag(facts.autoRenewStatus), flag(facts.isInBillingRetryPeriod),
            dash(facts.gracePeriodExpiresDate), facts.expirationIntent.map { String($0) } ?? "-",
        ]
        return "legacy-renewal:\(facts.originalTransactionId):" + parts.joined(separator: ":")
    }

    private static func dash(_ instant: Instant?) -> String {
        instant.map { String($0.milliseconds) } ?? "-"
    }

    private static func flag(_ value: Bool?) -> String {
        value.map { $0 ? "1" : "0" } ?? "-"
    }
}
