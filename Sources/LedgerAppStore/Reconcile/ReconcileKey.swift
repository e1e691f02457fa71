import LedgerCore

/// The idempotency keys of imported (non-notification) records: built from content, so importing
/// the same response twice yields the same keys and the log keeps one copy.
///
/// Signed imports key on the signed dates: Apple signs a fresh version of a transaction for every
/// API response, and each version is a fact of its own (the fold takes the latest signed). Whether a
/// fresh version adds anything the log lacks is ``KnownFacts``'s question, not the key's. Legacy
/// transactions carry no signed date, so their keys are the facts that can change.
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

    /// `legacy-renewal:<original_transaction_id>:<as-of ms>`: a subscription's pending renewal as a
    /// legacy response reported it at its ``LegacyReceiptResponse/asOf`` instant. Re-importing the
    /// same response repeats the key; a later response is a new observation, which ``KnownFacts``
    /// drops when the state did not change (a state that changes and changes back is still seen).
    public static func legacyRenewal(_ facts: RenewalFacts) -> String {
        "legacy-renewal:\(facts.originalTransactionId):\(facts.signedDate.milliseconds)"
    }

    private static func dash(_ instant: Instant?) -> String {
        instant.map { String($0.milliseconds) } ?? "-"
    }
}
